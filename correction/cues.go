package correction

import (
	"strings"
	"sync"

	"github.com/reflect-memory/reflect/internal/lazyregexp"
)

// cue is one weighted pattern. It is tried only where one of its anchor
// words starts (a word is a run of [a-z0-9]: "don't" is "don" "t"), and its
// regexp is matched anchored there, so a prompt costs a few short anchored
// matches instead of fifty scans of the whole head. An anchor "" means the
// start of the head only. cs requires the anchor to start a clause.
type cue struct {
	label    string
	w        float64
	anchors  []string
	kw       []string // when set, one of these words must be in the head for the regexp to be tried
	cs       bool
	re       *lazyregexp.Regexp
	question bool // an accusing question: the ordinary-question penalty does not apply
	// reject, when set, vetoes a match (indices into lo, with submatches).
	reject func(lo string, m []int) bool
	neg    bool // subtract w instead of adding to the noisy OR
	unless bool // for a negative: skipped when "but"/"however"/"though" follows
}

// anchoredRe compiles a cue pattern anchored where it is tried, on its first use: compiling
// the classifier's patterns took 2.2 ms, which every reflect command paid at start-up
// although only UserPromptSubmit hooks classify prompts.
func anchoredRe(s string) *lazyregexp.Regexp { return lazyregexp.New(`^(?:` + s + `)`) }

var (
	subjectAnchors = []string{"that", "thats", "this", "it", "its", "what", "your"}
	youAnchors     = []string{"you", "youre"}
	chooserAnchors = []string{"use", "using", "try", "prefer", "go", "switch", "stick", "pick", "choose"}
)

func newCues() []cue {
	return []cue{
		// Saying it is wrong.
		{label: "wrong, …", w: 0.8, kw: []string{"wrong", "incorrect"}, anchors: []string{""},
			re: anchoredRe(`(?:(?:nope|nah|no+)\W*\s*)?(?:wrong|incorrect)\b`)},
		{label: "that's wrong", w: 0.8, kw: []string{"wrong", "incorrect", "not"}, anchors: subjectAnchors,
			re: anchoredRe(`(?:that|this|it|this one|that one|what you did|your (?:fix|change|answer|approach|code|solution|version|edit|patch|test))(?:'s|s| is| was)\s+(?:(?:all|totally|completely|still|just|so|clearly|obviously|definitely|also|simply|absolutely|plain)\s+)?(?:wrong|incorrect|not (?:right|correct|it|what i (?:asked|wanted|meant|said)|how (?:it|we|this|that|you|i)|the (?:right|correct)))\b`)},
		{label: "that's not right", w: 0.75, kw: []string{"isn", "isnt", "wasn", "wasnt", "ain", "aint", "doesn", "doesnt", "not"}, anchors: []string{"that", "this", "it"},
			re: anchoredRe(`(?:that|this|it)\s*(?:isn'?t|is not|wasn'?t|was not|ain'?t|doesn'?t look)\s+(?:right|correct|it|what i (?:asked|wanted|meant|said)|how|the (?:right|correct))\b`)},
		{label: "not what I asked", w: 0.75, kw: []string{"what"}, anchors: []string{"not"},
			re: anchoredRe(`not what i (?:asked|wanted|meant|said|told you|had in mind|need)`)},
		{label: "you're wrong", w: 0.75, kw: []string{"wrong", "mistaken", "incorrect"}, anchors: youAnchors,
			re: anchoredRe(`you(?:'re|re| are| were)\s+(?:(?:so|totally|completely|just|still|dead|clearly|simply|absolutely)\s+)?(?:wrong|mistaken|incorrect)\b`)},
		{label: "the wrong …", w: 0.7, kw: []string{"wrong"}, anchors: youAnchors,
			re: anchoredRe(`you\S*[^.?!\n]{0,40}\b(?:the|a)\s+wrong\b`)},
		{label: "that's the wrong …", w: 0.75, kw: []string{"wrong"}, anchors: []string{"that", "thats", "this", "it", "its", "wrong"},
			re: anchoredRe(`(?:(?:that|this|it)(?:'s|s| is| was)\s+|wrong\s+)(?:the|a)\s+wrong\b`)},
		{label: "I don't think that's right", w: 0.6, kw: []string{"think"}, anchors: []string{"i"},
			re: anchoredRe(`i\s+(?:don'?t|do not)\s+think\s+(?:that'?s|this is|it'?s|that is|this'?s|you'?re|that will|this will|that'?ll|it will)\s+(?:right|correct|it|how|what|work|going to work|the right)`)},
		{label: "that's a bad idea", w: 0.55, kw: []string{"idea", "approach", "way", "solution", "fix", "choice", "move", "call", "hack"}, anchors: subjectAnchors,
			re: anchoredRe(`(?:that'?s|this is|it'?s|that was)\s+(?:a\s+)?(?:really\s+)?(?:bad|terrible|horrible|awful|dumb|stupid|silly|dangerous|risky) (?:idea|approach|way|solution|fix|choice|move|call|hack)\b`)},
		{label: "that's unnecessary", w: 0.55, kw: []string{"necessary", "unnecessary", "needed", "overkill", "much", "overcomplicated", "engineered", "overengineered"}, anchors: subjectAnchors,
			re: anchoredRe(`(?:that'?s|this is|it'?s|that is|that was)\s+(?:(?:way|totally|completely)\s+)?(?:not necessary|unnecessary|not needed|overkill|too much|overcomplicated|over-engineered|overengineered)\b`)},

		// Telling it not to.
		{label: "don't …", w: 0.7, anchors: []string{"don", "dont", "do"}, cs: true,
			re:     anchoredRe(`(?:don'?t|do not)(?:\s+(?:ever\s+|even\s+)?([a-z]+)|\s*(?:[.!]|$))`),
			reject: rejectNextWord(map[string]bool{"know": true, "worry": true, "mind": true, "care": true, "understand": true, "think": true, "see": true, "get": true, "remember": true, "forget": true, "recall": true, "have": true, "want": true, "like": true, "need": true})},
		{label: "never …", w: 0.65, anchors: []string{"never"}, cs: true,
			re:     anchoredRe(`never\s+(?:ever\s+)?([a-z]+)`),
			reject: rejectNextWord(map[string]bool{"mind": true})},
		{label: "stop …", w: 0.75, anchors: []string{"stop", "quit"}, cs: true,
			re:     anchoredRe(`(?:stop|quit)(?:\s+(it|that|this|now|doing|[a-z]+ing)\b|\s*(?:[.!,]|$))`),
			reject: rejectNextWord(map[string]bool{"being": true})},
		{label: "no need to …", w: 0.55, kw: []string{"need"}, anchors: []string{"no"},
			re:     anchoredRe(`no need\s+(?:to|for)\s+([a-z]+)`),
			reject: rejectNextWord(map[string]bool{"apologize": true, "apologise": true, "worry": true, "thank": true, "rush": true, "hurry": true, "be": true})},
		{label: "you don't need to …", w: 0.55, kw: []string{"need"}, anchors: youAnchors,
			re: anchoredRe(`you\s+(?:don'?t|do not|didn'?t|did not)\s+need\s+[a-z` + "`" + `"]`)},
		{label: "no more …", w: 0.6, kw: []string{"more"}, anchors: []string{"no"}, cs: true,
			re:     anchoredRe(`no more\s+([a-z]+)`),
			reject: rejectNextWord(map[string]bool{"errors": true, "warnings": true, "failures": true, "issues": true, "problems": true, "crashes": true, "questions": true, "bugs": true})},
		{label: "leave it alone", w: 0.55, kw: []string{"alone", "was", "were", "before"}, anchors: []string{"leave", "keep"}, cs: true,
			re: anchoredRe(`(?:leave|keep)\s+(?:it|that|this|them|those|these|the \S+)\s+(?:alone|as (?:it was|they were|before))`)},
		{label: "you can't …", w: 0.5, kw: []string{"can", "cannot", "cant", "must", "mustn"}, anchors: youAnchors,
			re: anchoredRe(`you\s+(?:can'?t|cannot|can not|mustn'?t|must not)\s+(?:just\s+)?[a-z]`),
			reject: func(lo string, m []int) bool {
				before := lo[:m[0]]
				return strings.HasSuffix(before, "if ") || strings.HasSuffix(before, "when ") || strings.HasSuffix(before, "why ") || strings.HasSuffix(before, "so ")
			}},

		// Blaming what it did.
		{label: "you should have …", w: 0.75, kw: []string{"should", "shouldve", "shoulda", "needed", "ought"}, anchors: youAnchors,
			re: anchoredRe(`you\s+(?:should(?:'ve| have|ve)|shoulda|needed to|ought to have)\b`)},
		{label: "you were supposed to …", w: 0.7, kw: []string{"supposed"}, anchors: youAnchors,
			re: anchoredRe(`you(?:'re|re| are| were| was)?\s+supposed to\b`)},
		{label: "you shouldn't have …", w: 0.8, kw: []string{"shouldn", "shouldnt", "not", "never"}, anchors: youAnchors,
			re: anchoredRe(`you\s+(?:shouldn'?t|should not|should never)\s+have\b`)},
		{label: "you shouldn't …", w: 0.65, kw: []string{"shouldn", "shouldnt", "not", "never"}, anchors: youAnchors,
			re: anchoredRe(`you\s+(?:shouldn'?t|should not|should never)\b`)},
		{label: "you should …", w: 0.3, kw: []string{"should"}, anchors: youAnchors,
			re: anchoredRe(`you\s+should\b`)},
		{label: "you broke …", w: 0.7, kw: []string{"broke", "broken", "messed", "screwed", "wrecked", "clobbered", "trashed", "nuked", "destroyed"}, anchors: youAnchors,
			re: anchoredRe(`you(?:'ve| have| just)?\s+(?:just\s+|completely\s+|totally\s+)?(?:broke|broken|messed up|screwed up|wrecked|clobbered|trashed|nuked|destroyed)\b`)},
		{label: "you forgot …", w: 0.6, kw: []string{"forgot", "forgotten", "missed", "ignored", "skipped", "overlooked"}, anchors: youAnchors,
			re: anchoredRe(`you(?:'ve| have| just)?\s+(?:(?:completely|totally|just|also)\s+)?(?:forgot|forgotten|missed|ignored|skipped|overlooked)\b`)},
		{label: "you deleted …", w: 0.5, kw: []string{"deleted", "removed", "overwrote", "overwritten", "dropped", "lost", "reverted", "changed"}, anchors: youAnchors,
			re: anchoredRe(`you(?:'ve| have| just)?\s+(?:(?:completely|totally|just|also)\s+)?(?:deleted|removed|overwrote|overwritten|dropped|lost|reverted|changed)\b`)},
		{label: "you didn't …", w: 0.55, kw: []string{"didn", "didnt", "never", "haven", "havent", "not"}, anchors: youAnchors,
			re: anchoredRe(`you\s+(?:didn'?t|did not|never|haven'?t|have not)\s+(?:even\s+)?(?:listen|read|follow|check|run|test|use|do|update|fix|change|look|ask|wait|commit|build)`)},
		{label: "you keep …", w: 0.65, kw: []string{"keep", "kept"}, anchors: youAnchors,
			re: anchoredRe(`you\s+(?:keep|kept)\s+(?:on\s+)?(?:[a-z]+ing|doing)\b`)},
		{label: "why did you …", w: 0.55, anchors: []string{"why"}, question: true,
			re: anchoredRe(`why\s+(?:did|didn'?t|are|were|do|have|the (?:hell|heck|fuck)|on earth (?:did|are|would))\s+(?:you|u)\b|why'd\s+you\b`)},
		{label: "why would you …", w: 0.65, kw: []string{"would"}, anchors: []string{"why"}, question: true,
			re: anchoredRe(`why\s+(?:would|on earth would)\s+(?:you|u)\b`)},
		{label: "what are you doing", w: 0.55, kw: []string{"doing", "did", "have"}, anchors: []string{"what"}, question: true,
			re: anchoredRe(`what (?:are|were) you doing\b|what (?:did|have) you (?:just )?done?\b`)},
		{label: "who told you to …", w: 0.75, kw: []string{"told", "asked"}, anchors: []string{"who"}, question: true,
			re: anchoredRe(`who (?:told|asked) you to\b`)},
		{label: "that broke …", w: 0.65, kw: []string{"broke", "breaks", "broken", "messed", "screwed", "worse"}, anchors: []string{"that", "this", "it", "which", "your"},
			re: anchoredRe(`(?:that|this|it|which|your (?:change|fix|edit|commit|patch|code|update))(?:\s+just|\s+has|\s+have|'s|\s+is)?\s+(?:now\s+|totally\s+|completely\s+)?(?:broke|breaks|broken|messed up|screwed up|made (?:it|things|everything|this|that) worse)\b`),
			reject: func(lo string, m []int) bool {
				// "is it broken?" asks; it does not say.
				seg := lo[m[0]:m[1]]
				return strings.HasSuffix(seg, "broken") && !strings.Contains(seg, "has") && !strings.Contains(seg, "have") && !strings.Contains(seg, "'s") && !strings.Contains(seg, " is ")
			}},
		{label: "that didn't work", w: 0.4, kw: []string{"didn", "didnt", "doesn", "doesnt", "did", "does"}, anchors: []string{"that", "this", "it"},
			re: anchoredRe(`(?:that|this|it)\s+(?:still\s+)?(?:didn'?t|did not|doesn'?t|does not)\s+(?:work|help|fix|solve)`)},
		{label: "I said …", w: 0.7, kw: []string{"said", "told", "asked", "mentioned"}, anchors: []string{"i", "as", "like"},
			re: anchoredRe(`(?:i\s+(?:said|told you|already (?:said|told you|asked)|(?:specifically|explicitly|clearly) (?:said|asked|told)|asked you (?:to|not)|asked for|never (?:said|asked|told))|as i (?:said|mentioned|told you)|like i said)\b`)},
		{label: "I meant …", w: 0.6, kw: []string{"meant"}, anchors: []string{"i"},
			re: anchoredRe(`i\s+meant\b`)},
		{label: "I didn't ask for …", w: 0.65, kw: []string{"want", "ask"}, anchors: []string{"i"},
			re: anchoredRe(`i\s+(?:don'?t|do not|didn'?t|did not)\s+(?:want (?:you to|that|this|those|these|any)|ask)\b`)},
		{label: "I don't like …", w: 0.5, kw: []string{"like"}, anchors: []string{"i"},
			re: anchoredRe(`i\s+(?:don'?t|do not)\s+like\s+(?:that|this|it|how|the way|what)\b`)},

		// Naming the alternative.
		{label: "not X, Y", w: 0.7, anchors: []string{""},
			re:     anchoredRe(`(?:(?:nope|nah|no+)\W*\s*)?not\s+([a-z0-9` + "`" + `'"./_~-]+)[^,;!?\n]{0,60}?\s*[,;-]\s*\S`),
			reject: rejectHedge},
		{label: "not like that", w: 0.7, kw: []string{"like", "that", "this", "there", "here"}, anchors: []string{"not"}, cs: true,
			re: anchoredRe(`not (?:like (?:that|this)|that one|this one|that way|this way|there|here)\b`)},
		{label: "X, not Y", w: 0.65, anchors: []string{"not"},
			re: anchoredRe(`not\s+([a-z0-9` + "`" + `'"./_~-]+)[^,;!?\n]{0,50}(?:[.!;\n]|$)`),
			reject: func(lo string, m []int) bool {
				before := strings.TrimRight(lo[:m[0]], " ")
				if !strings.HasSuffix(before, ",") {
					return true
				}
				before = strings.TrimRight(before[:len(before)-1], " ")
				return before == "" || !strings.ContainsAny(before[len(before)-1:], "abcdefghijklmnopqrstuvwxyz0123456789`'\"_)]/") || rejectHedge(lo, m)
			}},
		{label: "use X, not Y", w: 0.75, kw: []string{"not"}, anchors: []string{"use", "using", "it", "its", "should", "i", "we", "prefer"},
			re: anchoredRe(`(?:use|using|it'?s|it is|should be|i want|we use|prefer)\s+[^,;.!?\n]{1,40}?,?\s+not\s+[a-z0-9` + "`" + `'"./_~-]`),
			reject: func(lo string, m []int) bool {
				return hedgeAfterNot(lo, strings.LastIndex(lo[:m[1]], " not ")+len(" not "))
			}},
		{label: "use … instead", w: 0.65, kw: []string{"instead", "rather"}, anchors: chooserAnchors,
			re: anchoredRe(`(?:use|try|using|prefer|go with|switch to|stick with|stick to|pick|choose|go for)\s+[^.;!?\n]{1,60}?\s+(?:instead|rather than)\b`)},
		{label: "instead of …, use …", w: 0.7, anchors: []string{"instead"},
			re: anchoredRe(`instead(?:\s+of\s+[^.;!?\n]{1,60}?)?\s*,?\s+(?:please\s+|just\s+)?(?:use|try|go with|switch to|call|run|do)\b`)},
		{label: "… instead.", w: 0.5, anchors: []string{"instead"},
			re:     anchoredRe(`instead\s*(?:[.!\n]|$)`),
			reject: func(lo string, m []int) bool { return strings.TrimSpace(lo[:m[0]]) == "" }},
		{label: "instead of", w: 0.25, anchors: []string{"instead"},
			re: anchoredRe(`instead of\b`)},
		{label: "revert that", w: 0.7, anchors: []string{"revert", "undo", "roll", "rollback", "back", "put", "restore", "reset"}, cs: true,
			re: anchoredRe(`(?:revert|undo|roll\s*back|back out|put back|restore|reset)\s+(?:that|this|it|those|these|your|the (?:last|previous|change|changes|edit|edits)|what you|everything|all)\b`)},
		{label: "undo your …", w: 0.65, anchors: []string{"revert", "undo", "roll", "rollback", "back"},
			re: anchoredRe(`(?:revert|undo|roll\s*back|back out)\s+(?:your|what you|all (?:of )?your)\b`)},
		{label: "put it back", w: 0.6, kw: []string{"back"}, anchors: []string{"put", "change", "set", "turn", "move"},
			re: anchoredRe(`(?:put|change|set|turn|move)\s+(?:it|that|this|them|those|everything)\s+back\b`)},
		{label: "actually, use …", w: 0.55, anchors: []string{"actually"}, cs: true,
			re: anchoredRe(`actually\W+(?:(?:let'?s|please|just|we should|you should)\s+)?(?:use|try|go with|switch to|call|run|put)\b`)},
		{label: "actually, …", w: 0.3, anchors: []string{"actually"}, cs: true,
			re: anchoredRe(`actually\b`)},
		{label: "use …", w: 0.3, anchors: []string{"use", "try", "switch", "go", "stick"}, cs: true,
			re: anchoredRe(`(?:use|try|switch to|go with|stick with|stick to)\s+\S`)},

		// Exasperation: weak alone, it firms up another cue.
		{label: "for the nth time", w: 0.6, kw: []string{"time", "times"}, anchors: []string{"for", "how"},
			re: anchoredRe(`for the (?:last|second|third|fourth|fifth|\d+(?:st|nd|rd|th)|nth|hundredth|millionth|umpteenth) time\b|how many times\b`)},
		{label: "ugh", w: 0.35, anchors: []string{"ugh", "ughh", "ughhh", "argh", "seriously", "come", "wtf", "omg", "ffs", "for", "are"},
			re: anchoredRe(`(?:ugh+|argh+|seriously|come on|wtf|omg|ffs|for (?:fuck|god|christ|pete)'?s sake|are you kidding)\b`)},

		// Negative cues: approval, thanks, and "wrong" that blames nobody.
		{neg: true, unless: true, w: 0.45, anchors: []string{""},
			re: anchoredRe(`(?:yes|yep|yeah|yup|ya|yea|exactly|correct|right)\b`)},
		{neg: true, unless: true, w: 0.45, cs: true,
			anchors: []string{"perfect", "great", "awesome", "excellent", "nice", "lgtm", "cool", "good", "sweet", "brilliant", "amazing", "fantastic", "beautiful", "love"},
			re:      anchoredRe(`(?:perfect|great|awesome|excellent|nice|lgtm|cool|good|sweet|brilliant|amazing|fantastic|beautiful|love it)\b`)},
		{neg: true, unless: true, w: 0.45, anchors: []string{"great", "good", "nice", "well", "looks", "that", "thats", "it", "works"},
			re: anchoredRe(`(?:great job|good job|nice work|nice job|great work|well done|looks good|looks great|that works|that worked|it works|works now|that fixed it|that did it|that did the trick|that'?s (?:right|correct|perfect|great|fine|ok|okay|good|exactly|better|much better|what i wanted))\b`)},
		{neg: true, w: 0.2, anchors: []string{"thanks", "thank", "thx", "ty", "cheers", "much", "appreciate"},
			re: anchoredRe(`(?:thanks|thank you|thx|ty|cheers|much appreciated|appreciate it)\b`)},
		{neg: true, w: 0.25, kw: []string{"wrong"}, anchors: []string{"what", "whats", "something", "somethings", "anything", "nothing", "can", "could", "might", "will", "goes", "go", "went", "gone", "wrong"},
			re: anchoredRe(`(?:what(?:'s| is| was| went)|something(?:'s| is| was| went)?|anything(?:'s| is)?|nothing(?:'s| is)?|can|could|might|will|goes|go|went|gone)\s+wrong\b|wrong with\b`)},
	}
}

// cueTable is the cues and, by anchor word, which of them to try where it starts. Both are
// built on first use: as package variables they were 0.1 ms of every reflect process's
// start-up (GODEBUG=inittrace=1), paid by commands and hooks that classify no prompt.
var cueTable = sync.OnceValues(func() ([]cue, map[string][]int) {
	cues := newCues()
	m := make(map[string][]int)
	for i, c := range cues {
		for _, a := range c.anchors {
			m[a] = append(m[a], i)
		}
	}
	return cues, m
})

// cueWindow bounds the text a cue's anchored regexp reads: longer than any
// cue can match, so "$" at the window's end never matches short of the head's
// end, and short enough that a dense head stays cheap.
const cueWindow = 128

// maxCues bounds cues so a match set fits in an array on the stack.
const maxCues = 96

// discourseWords are words after which a clause (an imperative) may begin.
var discourseWords = map[string]bool{"no": true, "nope": true, "nah": true, "please": true, "pls": true, "plz": true,
	"and": true, "but": true, "just": true, "so": true, "again": true, "seriously": true, "actually": true, "then": true,
	"ok": true, "okay": true, "wait": true, "oh": true, "ugh": true, "hey": true, "also": true, "now": true}

// clauseStart reports whether position p of lo starts a clause.
func clauseStart(lo string, p int) bool {
	i := p
	for i > 0 && lo[i-1] == ' ' {
		i--
	}
	if i == 0 {
		return true
	}
	switch c := lo[i-1]; {
	case strings.IndexByte("\n.;:!?,(", c) >= 0:
		return true
	case c == '-':
		return i >= 2 && (lo[i-2] == ' ' || lo[i-2] == '-')
	case c >= 'a' && c <= 'z':
		j := i
		for j > 0 && lo[j-1] >= 'a' && lo[j-1] <= 'z' {
			j--
		}
		w := lo[j:i]
		return discourseWords[w] || len(w) > 2 && strings.Trim(w, "o") == "n"
	}
	return false
}

// notHedges are words after "not" that make "not X, Y" a hedge, not a correction.
var notHedges = map[string]bool{"sure": true, "yet": true, "now": true, "really": true, "bad": true, "much": true,
	"necessarily": true, "only": true, "just": true, "too": true, "so": true, "at": true, "important": true,
	"urgent": true, "certain": true, "today": true, "entirely": true}

// notDegree follow "not" in a correction that names nothing ("not quite, …").
var notDegree = map[string]bool{"quite": true, "exactly": true, "really": true, "entirely": true}

// notHedgeNouns follow "not a"/"not an" in a hedge ("not a problem, …").
var notHedgeNouns = map[string]bool{"problem": true, "big": true, "bad": true, "huge": true, "concern": true,
	"blocker": true, "priority": true, "fan": true, "lot": true, "issue": true, "worry": true}

// hedgeAfterNot reports whether the words at i (just after "not ") hedge.
func hedgeAfterNot(lo string, i int) bool {
	w := wordAt(lo, i)
	if w == "a" || w == "an" {
		return notHedgeNouns[wordAt(lo, i+len(w)+1)]
	}
	return notHedges[w]
}

func rejectHedge(lo string, m []int) bool {
	return len(m) >= 4 && m[2] >= 0 && hedgeAfterNot(lo, m[2])
}

func rejectNextWord(words map[string]bool) func(string, []int) bool {
	return func(lo string, m []int) bool {
		if len(m) >= 4 && m[2] >= 0 {
			return words[lo[m[2]:m[3]]]
		}
		return false
	}
}
