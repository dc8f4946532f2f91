package correction

// Statements: the sentences of a prompt in which the person states something lasting about
// the project, its tooling, its environment or its conventions ("we don't control the claude
// code process", "staging uses the eu-west-1 bucket", "this repo uses pnpm"), or a standing
// rule ("never push to main", "always run make lint first"). Real sessions teach this way
// more often than through a failed command, and only the person's words are read: what the
// agent says about a project is not evidence.
//
// The same approach as Classify: the prompt's prose lines (fenced code, pasted logs and
// quoted lines are skipped) are cut into sentences (at . ! ? ; and a spaced dash), each
// sentence is normalised and stripped of openers ("btw", "keep in mind", "also", "ok,"), and
// weighted cues combine as a noisy OR, 1 - Π(1 - w), minus the negative cues:
//
//   - a generic subject with a present-tense verb: "we use / test against / edit / never
//     push / don't control", "this repo uses", "staging uses", "CI builds with", "the
//     staging cluster is on 1.27", "X is not installed here" (0.5-0.6);
//   - an explicit standing rule: "always …", "never …", "don't ever …", "make sure to
//     always …" at the start of a sentence, with a verb after it (0.65);
//   - boosters: an opener that frames knowledge ("keep in mind", "fyi", "note that"), a
//     standing time ("every time", "before committing", "by default", "no matter what"), a
//     reason given ("so", "because"), a version;
//   - against: a question, a sentence scoped to now ("today", "for now", "this time", "for
//     this PR", "yet"), a task request ("add …", "fix …", "can you …", "let's …"), a report
//     of a bug or of the current state ("returns 500 when", "is broken", "takes 40 minutes
//     since last week", "should be a 400"), chit-chat, a pointer to where code lives.
//
// A sentence is a statement at 0.5. A statement that names nothing of its own and leans on
// the sentence before ("never commit it") is marked Continues: it belongs to that one.

import (
	"strings"
	"sync"
	"unicode"

	"github.com/reflect-memory/reflect/internal/lazyregexp"
)

// Statement is one sentence of a prompt that states a lasting fact or rule.
type Statement struct {
	Text  string  // the sentence as written, openers dropped
	Score float64 // 0..1
	Cue   string  // the strongest cue
	// Rule: an explicit standing rule (always, never, every time, we never …), not only a
	// fact: it can be trusted more.
	Rule bool
	// Continues: the sentence leans on the one before it ("never commit it").
	Continues bool
}

const (
	statementThreshold = 0.5
	statementMinWords  = 4
	statementMaxWords  = 45
)

// Statements returns the sentences of prompt that read as lasting facts or rules, in order.
func Statements(prompt string) []Statement {
	var out []Statement
	var fence codeFence
	scan := prompt[:min(len(prompt), scanBytes)]
	for raw := range strings.Lines(scan) {
		t := strings.TrimSpace(raw)
		if fence.marker(t) || fence.open != "" || t == "" || !proseLine(raw) {
			continue
		}
		lo, cs := normLine(t)
		for _, sp := range sentences(lo) {
			if st, ok := statement(lo[sp[0]:sp[1]], cs[sp[0]:sp[1]]); ok {
				out = append(out, st)
			}
		}
	}
	return out
}

// proseLine tells a line of prose from pasted code, logs and quotes: not indented like
// code, not a quote or a shell prompt, mostly letters.
func proseLine(raw string) bool {
	if strings.HasPrefix(raw, "    ") || strings.HasPrefix(raw, "\t") {
		return false
	}
	t := strings.TrimSpace(raw)
	if strings.HasPrefix(t, ">") || strings.HasPrefix(t, "$ ") || strings.HasPrefix(t, "at ") && strings.Contains(t, ":") ||
		strings.HasPrefix(t, "Traceback") || strings.HasPrefix(t, "File \"") {
		return false
	}
	letters, others := 0, 0
	for _, r := range t {
		switch {
		case unicode.IsLetter(r) || r == ' ':
			letters++
		case unicode.IsDigit(r) || strings.ContainsRune(".,'-`", r):
		default:
			others++
		}
	}
	return letters >= 3*others
}

// sentences cuts a normalised line at . ! ? ; (followed by a space or the end) and at a
// spaced dash, outside code, not after e.g. / i.e. / etc. / vs.
func sentences(lo string) [][2]int {
	var out [][2]int
	start := 0
	code := false
	cut := func(end, next int) {
		if strings.TrimSpace(lo[start:end]) != "" {
			out = append(out, [2]int{start, end})
		}
		start = next
	}
	for i := 0; i < len(lo); i++ {
		c := lo[i]
		if c == '`' {
			code = !code
			continue
		}
		if code {
			continue
		}
		switch {
		case (c == '.' || c == '!' || c == '?' || c == ';') && (i+1 == len(lo) || lo[i+1] == ' '):
			if c == '.' {
				w := lo[start:i]
				if k := strings.LastIndexByte(w, ' '); k >= 0 {
					w = w[k+1:]
				}
				if w == "e.g" || w == "i.e" || w == "etc" || w == "vs" || w == "cf" {
					continue
				}
			}
			cut(i+1, i+1)
		case c == ',' && (strings.HasPrefix(lo[i:], ", and ") || strings.HasPrefix(lo[i:], ", but ")):
			cut(i, i+2)
		case c == ' ' && i+2 < len(lo) && lo[i+1] == '-' && lo[i+2] == ' ':
			cut(i, i+3)
			i += 2
		case c == ' ' && i+3 < len(lo) && lo[i+1] == '-' && lo[i+2] == '-' && lo[i+3] == ' ':
			cut(i, i+4)
			i += 3
		}
	}
	cut(len(lo), len(lo))
	return out
}

// stmtOpeners are dropped from a sentence's start; those marked true frame what follows as
// knowledge.
var stmtOpeners = []struct {
	p     string
	frame bool
}{
	{"keep in mind that ", true}, {"keep in mind ", true}, {"bear in mind that ", true}, {"bear in mind ", true},
	{"fyi, ", true}, {"fyi: ", true}, {"fyi ", true}, {"btw, ", true}, {"btw ", true}, {"by the way, ", true},
	{"note that ", true}, {"note: ", true}, {"note, ", true}, {"note ", true}, {"heads up, ", true}, {"heads up: ", true},
	{"heads-up: ", true}, {"just so you know, ", true}, {"just so you know ", true}, {"for context, ", true},
	{"for context: ", true}, {"for reference, ", true}, {"be aware that ", true}, {"be aware ", true},
	{"important: ", true}, {"context: ", true}, {"in general, ", true}, {"generally, ", true},
	{"also, ", false}, {"also ", false}, {"and ", false}, {"but ", false}, {"so ", false}, {"oh, ", false},
	{"ok, ", false}, {"ok ", false}, {"okay, ", false}, {"okay ", false}, {"nice. ", false}, {"nice, ", false},
	{"great, ", false}, {"yes, ", false}, {"yes ", false}, {"no, ", false}, {"nope, ", false}, {"well, ", false},
	{"actually, ", false}, {"actually ", false}, {"again, ", false}, {"please ", false}, {"plus ", false},
	{"hey, ", false}, {"hmm, ", false}, {"right, ", false}, {"though ", false}, {"and also ", false},
}

type stmtCue struct {
	label string
	w     float64
	re    *lazyregexp.Regexp
	rule  bool // an explicit standing rule
	neg   bool
	// start: matched at the sentence's start only (after openers)
	start bool
}

// stmtVerbs are present-tense verbs of a convention or a fact after a generic subject.
const stmtVerbs = `use|uses|run|runs|deploy|deploys|test|tests|build|builds|edit|keep|write|put|prefer|avoid|commit|push|` +
	`release|ship|squash|rebase|merge|pin|vendor|mock|lint|format|tag|host|store|name|control|own|support|target|follow|` +
	`require|requires|go through|goes through|work|rely|relies|depend|depends|treat|review|generate|publish|cache|call|` +
	`log|handle|manage|maintain|patch|need|needs|has|have|is|are|lives|live|sits|points|blocks|rejects|fails|` +
	`only|still|expects|expect|reads|read|talks|talk|owns|serve|serves|sign|signs|squash|migrate|` +
	`don't|do not|doesn't|does not|can't|cannot|never|always|no longer`

// stmtCues are built on first use, as the cues are (cueTable).
var stmtCues = sync.OnceValue(func() []stmtCue {
	return []stmtCue{
		// Generic subjects with a present-tense verb.
		{label: "we <verb> …", w: 0.55, start: true, re: lazyregexp.New(`^(?:here |in this (?:repo|project|codebase|team) |around here )?(?:we|our team)(?:'re| are)? (?:(?:always|never|usually|generally|normally|typically|only|all|don't|do not|no longer|still|strictly)\s+)*(?:use|run|deploy|test|build|edit|keep|write|put|prefer|avoid|commit|push|release|ship|squash|rebase|merge|pin|vendor|mock|lint|format|tag|host|store|name|control|own|support|target|follow|require|go through|work|rely|depend|treat|review|generate|publish|mirror|cache|call|log|handle|manage|maintain|patch|sign|migrate|squash-merge|check in|talk to|deploy to|consume|share|expose|own)\b`)},
		{label: "we always / never …", w: 0.6, rule: true, start: true, re: lazyregexp.New(`^(?:here |in this (?:repo|project|codebase|team) |around here )?(?:we|our team) (?:must |should |have to )?(?:always|never|strictly|only ever)\s+(?:ever\s+)?[a-z]`)},
		{label: "we're on / using … everywhere", w: 0.55, start: true, re: lazyregexp.New(`^(?:here )?we(?:'re| are) (?:on|using|standardi[sz]ed on|standardi[sz]ing on|moving everything to|migrating everything to) [^,.;]*(?:everywhere|across|in all|in every|throughout|\bv?\d+(?:\.\d+)*\b)`)},
		{label: "the <system> uses …", w: 0.5, start: true, re: lazyregexp.New(`^(?:(?:the|our|all|all our|all the) )?(?:[a-z0-9._-]+ ){0,2}(?:service|services|database|databases|db|api|apis|app|apps|frontend|backend|cluster|clusters|queue|queues|cache|bucket|buckets|images|image|tests|test suite|build|builds|pipeline|manifests|config|configs|schema|client|sdk|cli|worker|workers|cron|jobs|migrations|logs|data|docs|site|website|server|servers|proxy|gateway|monorepo|codebase|package|packages|module|modules|lambda|lambdas|functions|containers|deploys|releases|secrets|env vars|environment variables) (?:(?:all|only|still|also|always) )?(?:uses|use|talks to|talk to|reads from|read from|writes to|write to|comes from|come from|goes to|go to|is generated by|are generated by|are generated from|is generated from|is built|are built|is deployed|are deployed|runs on|run on|is hosted|are hosted|depends on|depend on|relies on|rely on|is managed by|are managed by|is owned by|are owned by|is refreshed|are refreshed|is published|are published|are stored in|is stored in|live in|lives in)\b`)},
		{label: "this is a monorepo …", w: 0.55, start: true, re: lazyregexp.New(`^this is an? (?:monorepo|(?:[a-z0-9+#.-]+ ){1,2}(?:monorepo|project|app|service|library|cli|package|workspace|codebase))\b`)},
		{label: "don't … without asking", w: 0.6, rule: true, start: true, re: lazyregexp.New(`^(?:please )?(?:don't|do not|never) [^.]{3,80}? without (?:asking|checking with (?:me|us)|(?:my |our )?approval|permission|a review|telling (?:me|us))\b`)},
		{label: "a team owns …", w: 0.55, start: true, re: lazyregexp.New(`^(?:the |our )?(?:[a-z0-9-]+ )?(?:team|squad|platform team|infra team|sre team|security team) (?:owns|maintains|runs|manages|deploys|reviews|approves|controls|is responsible for)\b`)},
		{label: "points at prod", w: 0.5, re: lazyregexp.New(`\b(?:points?|pointed) (?:at|to) (?:prod|production|staging|the prod|the production|the staging|the live)\b`)},
		{label: "we have to / must …", w: 0.45, start: true, re: lazyregexp.New(`^(?:here )?we (?:have to|must|can't|cannot|can not|aren't allowed to|are not allowed to|may not)\b`)},
		{label: "this repo …", w: 0.6, start: true, re: lazyregexp.New(`^(?:this|the|our) (?:repo|repository|project|codebase|monorepo|app|service|team|company|package|workspace|org|organisation|organization|stack)(?: here)?(?:'s| is| are|\b)[^.]{0,30}?\b(?:uses|is|runs|has|needs|requires|doesn't|does not|can't|cannot|only|builds|deploys|targets|ships|lives|depends|relies|is built|is deployed|has no|pins|talks|calls|reads|writes|sends|stores|serves|exposes|owns|expects|signs|caches|keeps|logs|publishes|speaks|connects)\b`)},
		{label: "staging / prod / CI …", w: 0.55, start: true, re: lazyregexp.New(`^(?:the )?(?:staging|prod|production|dev|qa|preview|ci|cd|our ci|github actions|jenkins|the build|the pipeline|the runners?|ci runners?|(?:staging|prod|production|dev|qa|ci|test|preview|local)(?:'s)? (?:cluster|db|database|server|servers|environment|env|bucket|buckets|account|box|machine|runner|runners|host|hosts|region|stack|deploy|deployment|vpc|network|queue|cache|redis|postgres|api|domain)|cluster|this machine|my machine|this box|this laptop|the server|the vm|the container|the sandbox|locally|in ci|on ci|on staging|on prod|in prod|in staging|in production)(?: (?:we|i|you)(?:'re)?(?: (?:still|only|always|never|also|all))? (?:use|run|build|need|require|deploy|test|lint|pin|sign|host|keep|have no)|(?:'s|'re)?(?: (?:still|only|always|never|also|currently|all|both))? (?:uses|is|are|runs|builds|needs|requires|doesn't|does not|don't|do not|can't|cannot|only|rejects|blocks|deploys|points|lives|sits|has no|have no|expects|caches|pins|signs|talks|reads|serves|checks|enforces|lacks|has only|hosts|tests|lints))\b`)},
		{label: "X is not installed here", w: 0.55, re: lazyregexp.New(`\b(?:isn't|is not|aren't|are not) (?:installed|available) (?:here|on this (?:machine|box|laptop|server)|in (?:this|the) (?:environment|sandbox|container)|locally)\b|\bthere(?:'s| is) no [a-z0-9._-]+ (?:here|on this (?:machine|box|laptop)|in (?:this|the) (?:environment|sandbox|container))\b`)},
		{label: "I always / never …", w: 0.55, rule: true, start: true, re: lazyregexp.New(`^i (?:always|never) (?:run|use|test|commit|push|deploy|write|format|lint|check|review|rebase|squash|sign|build|start|keep|put|prefer|avoid|work)\b`)},

		// Explicit standing rules.
		{label: "always / never …", w: 0.65, rule: true, start: true, re: lazyregexp.New(`^(?:always|never)\s+(?:ever\s+)?([a-z]+)`)},
		{label: "don't ever …", w: 0.65, rule: true, start: true, re: lazyregexp.New(`^(?:don't|do not|never) ever\b|^(?:make sure (?:to|you) always|be sure to always|you (?:must|should) (?:always|never)|you must not ever)\b`)},
		{label: "the rule is …", w: 0.6, rule: true, re: lazyregexp.New(`\b(?:the rule is|our rule is|as a rule|by convention|the convention is|our convention is|our policy is|the policy is|company policy)\b`)},

		// Boosters.
		{label: "a standing time", w: 0.3, rule: true, re: lazyregexp.New(`\b(?:every time|each time|whenever|before (?:every|each|any) (?:commit|push|merge|release|deploy|pr)|before (?:you |we )?(?:commit|push|merge|release|deploy|open a pr|tag)(?:ing)?\b|in every (?:project|repo)|from now on|going forward|by default|no matter what|at all times|under no circumstances)\b`)},
		{label: "everywhere", w: 0.3, re: lazyregexp.New(`\b(?:in all (?:our )?(?:environments|envs|services|repos|projects|packages)|in every (?:environment|env|service|repo|project|package)|everywhere|across (?:all|every) [a-z]+|across the board|in all of them)\b`)},
		{label: "a reason", w: 0.12, re: lazyregexp.New(`(?:, so |\bso that\b| because | since (?:we|it|the|our|this)\b|, which means\b|\botherwise\b)`)},
		{label: "a version", w: 0.25, re: lazyregexp.New(`\b(?:is|are|runs|run|on|still on|pinned to|stuck on)\s+(?:still\s+)?(?:on\s+)?(?:[a-z]+\s+)?(?:version\s+|v)?\d+(?:\.\d+)+\b`)},
		{label: "instead of", w: 0.1, re: lazyregexp.New(`\binstead of\b`)},

		// Against.
		{label: "task request", w: 0.45, neg: true, start: true, re: lazyregexp.New(`^(?:let's|lets|let us|please|pls|can you|could you|would you|will you|can we|could we|i want|i'd like|i would like|i need|i wanted|go ahead|add|fix|make|implement|update|remove|delete|create|write|change|refactor|rename|move|split|bump|check|find|look|show|tell|explain|try|put|give|help|run|use|switch|set|wrap|commit|open|merge|deploy|install|upgrade|log|expose|batch|fit|reseed|clean|drop|port|migrate|convert|replace|revert|undo|investigate|debug|profile|figure|do|start|stop|keep|leave|ignore|skip|send|mark|return|handle|support|allow|call|pass|test|document|review)\b`)},
		{label: "scoped to now", w: 0.5, neg: true, re: lazyregexp.New(`\b(?:today|tonight|tomorrow|for now|right now|this time|for the moment|at the moment|for this (?:pr|task|change|ticket|one|fix|feature|commit|session|branch|release|sprint)|in this (?:pr|change|commit|branch|ticket)|for this|this week|this sprint|just this once|until (?:we|i|the)|temporarily|yet|currently)\b`)},
		{label: "bug or state report", w: 0.45, neg: true, re: lazyregexp.New(`\b(?:returns? (?:a |an )?(?:\d{3}|error|nil|null|none|wrong)|is broken|are broken|doesn't work|does not work|isn't working|is not working|stopped working|started failing|is failing|are failing|keeps? failing|is off by|throws|crashes|is slow|are slow|takes \d+|since (?:last|yesterday|this morning|the last|monday|tuesday|wednesday|thursday|friday)|anymore|no longer works|is wrong|are wrong|regressed|got slow|is empty|is missing|are missing|has a bug|there's a bug|there is a bug|cut off|is marked)\b`)},
		{label: "a passing state", w: 0.45, neg: true, re: lazyregexp.New(`(?:\b(?:is|are|was|were|went|seems?|looks?|got|feels?)|'s|'re) (?:still |now |already |currently |so |really |very |pretty |kind of )?(?:(?:red|green|flaky|failing|broken|slow|stuck|hanging|timing out|not working|not passing|not responding|unhealthy|degraded|on fire|a mess|messy|weird|confusing|terrible|awful|annoying|great|fine|ok|okay|wrong|off|huge|big|small|tiny|large|ugly|nice|clean|simple|complex|complicated|old|outdated|slower|faster)(?:$|[ ,;:!])|(?:down|up|ready|done|deployed|updated|empty|live|back|fixed|gone|stale|out of date|behind|ahead|dirty|merged|released|reverted)(?:$|[,;:!]| now| again| already| yet| right now| today))|\btakes (?:forever|ages|too long|a while|long)\b`)},
		{label: "then a task", w: 0.45, neg: true, re: lazyregexp.New(`, (?:so |and |then )?(?:please |pls |can you |could you )?(?:remove|fix|change|delete|drop|update|rename|move|revert|undo|replace|add|clean up|get rid of|look at|check) (?:it|that|this|them|those)\b`)},
		{label: "should …", w: 0.35, neg: true, re: lazyregexp.New(`\b(?:should|shouldn't|should not|would|could|might)\b`)},
		{label: "question", w: 0.8, neg: true, re: lazyregexp.New(`\?\s*$`)},
		{label: "question word", w: 0.45, neg: true, start: true, re: lazyregexp.New(`^(?:what|how|why|where|when|which|who|whose|is there|are there|do we|does it|did you|is it|are we|can i)\b`)},
		{label: "chit-chat", w: 0.8, neg: true, start: true, re: lazyregexp.New(`^(?:thanks|thank you|thx|great|cool|nice|perfect|awesome|lgtm|looks good|sounds good|ok|okay|yes|yep|sure|good|fine|done|ship it|that works|that's it|that's all|all good|sorry|hi|hello|hey)\b`)},
		{label: "where code is", w: 0.35, neg: true, re: lazyregexp.New(`\b(?:is|are|lives|live|sits|sit) (?:in|at|under|inside) (?:\x60[^\x60]*\x60|[a-z0-9_.-]*/[a-z0-9_./-]*)|\bthe (?:code|handler|logic|test|tests|file|function|config|class|method|endpoint|query|component) (?:for [a-z ]+ )?(?:is|are|lives) (?:in|at)\b`)},
		{label: "you …", w: 0.4, neg: true, start: true, re: lazyregexp.New(`^you(?:'re| are| were| did| didn't| forgot| keep| broke| missed| need to| can| could)\b`)},
		{label: "I …", w: 0.4, neg: true, start: true, re: lazyregexp.New(`^i(?:'m|'ve| am| think| guess| wonder| believe| noticed| saw| see| ran| tried| just| was| have| had| got| hope| feel)\b`)},
		{label: "there's a …", w: 0.2, neg: true, start: true, re: lazyregexp.New(`^(?:there's|there is|there are|here's|here is) (?:a|an|the|some|one|two|\d)\b`)},
	}
})

// notVerbs after "always" or "never" show it describes rather than rules ("always on",
// "never mind").
var notVerbs = map[string]bool{"on": true, "in": true, "at": true, "the": true, "a": true, "an": true, "to": true, "for": true,
	"with": true, "mind": true, "been": true, "was": true, "is": true, "be": true, "had": true, "has": true, "again": true,
	"true": true, "false": true, "null": true, "nil": true, "empty": true, "zero": true, "there": true, "here": true, "when": true,
	"if": true, "because": true, "after": true, "before": true, "going": true, "really": true,
	"saw": true, "heard": true, "thought": true, "knew": true, "did": true, "got": true, "made": true, "found": true,
	"said": true, "told": true, "understood": true, "worked": true, "ran": true, "went": true, "came": true, "felt": true}

func statement(lo, cs string) (Statement, bool) {
	lo, cs = strings.TrimSpace(lo), strings.TrimSpace(cs)
	lo, cs = strings.TrimRight(lo, ".!;"), strings.TrimRight(cs, ".!;")
	frame := false
	for changed := true; changed; {
		changed = false
		for _, o := range stmtOpeners {
			if strings.HasPrefix(lo, o.p) && len(lo) > len(o.p) {
				lo, cs = lo[len(o.p):], cs[len(o.p):]
				frame = frame || o.frame
				changed = true
			}
		}
	}
	n := len(strings.Fields(lo))
	if n < statementMinWords || n > statementMaxWords {
		return Statement{}, false
	}
	keep, neg := 1.0, 0.0
	best, bestW := "", 0.0
	rule, positive, startCue := false, false, false
	if frame {
		keep *= 1 - 0.35
		best, bestW = "framed as knowledge", 0.35
	}
	cues := stmtCues()
	for i := range cues {
		c := &cues[i]
		m := c.re.FindStringSubmatchIndex(lo)
		if m == nil || c.start && m[0] != 0 {
			continue
		}
		if c.label == "always / never …" && len(m) > 3 && m[2] >= 0 {
			w := lo[m[2]:m[3]]
			if notVerbs[w] || strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") ||
				strings.HasSuffix(w, "ed") || strings.HasSuffix(w, "en") && w != "open" && w != "listen" || strings.HasSuffix(w, "ing") && w != "bring" {
				continue
			}
		}
		if c.neg {
			if c.label == "should …" && rule {
				continue
			}
			neg += c.w
			continue
		}
		keep *= 1 - c.w
		positive = true
		startCue = startCue || c.start
		rule = rule || c.rule && c.w >= 0.5
		if c.w > bestW {
			best, bestW = c.label, c.w
		}
	}
	if !positive || !startCue && !frame && bestW < 0.5 {
		// boosters alone do not make a statement
		return Statement{}, false
	}
	if rule {
		// an explicit rule is not a task request ("always run make lint first")
		neg = max(0, neg-0.45)
	}
	score := max(0, min(1, 1-keep-neg))
	if score < statementThreshold {
		return Statement{}, false
	}
	text := strings.TrimSpace(cs)
	return Statement{Text: text, Score: score, Cue: best, Rule: rule, Continues: leansBack(lo)}, true
}

// leansBack reports whether a sentence's subject or object is a pronoun for something said
// before it: "it's in docker-compose.yml", "never commit it", "that breaks the build".
func leansBack(lo string) bool {
	ws := strings.Fields(lo)
	for i, w := range ws {
		if i >= 4 {
			break
		}
		w = strings.Trim(w, ",.:;!")
		switch w {
		case "it", "it's", "its", "them", "they", "they're", "those":
			return true
		case "that", "this", "these":
			if i+1 < len(ws) {
				switch strings.Trim(ws[i+1], ",.") {
				case "is", "was", "'s", "will", "would", "breaks", "needs", "means", "has", "makes", "one", "ones", "too", "also",
					"again", "ever", "anymore", "here", "there", "to", "for", "in", "on", "with", "without", "unless", "when",
					"before", "after", "and", "or", "but", "if", "until":
					return true
				}
			} else {
				return true
			}
		}
	}
	return false
}
