package drain

// Preferences: imperative instructions repeated across prompts.

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/reflect-memory/reflect/correction"
	"github.com/reflect-memory/reflect/internal/lazyregexp"
	"github.com/reflect-memory/reflect/queue"
)

type instruction struct {
	prompt int // note index
	text   string
	words  []string
	neg    bool
}

func preferenceProposals(notes []queue.Note, turns []turn) []anchored {
	var all []instruction
	for _, t := range turns {
		if t.prompt < 0 {
			continue
		}
		p := notes[t.prompt].Text
		if _, ok := correction.Remember(p); ok {
			continue // an explicit note is a rule already
		}
		for _, s := range instructions(p) {
			w := titleWords(s)
			if len(w) < hMinInstrWord {
				continue
			}
			all = append(all, instruction{prompt: t.prompt, text: s, words: w, neg: negative(s)})
		}
	}
	var groups [][]instruction
	for _, in := range all {
		joined := false
		for g := range groups {
			head := groups[g][0]
			if head.neg == in.neg && overlap(head.words, in.words) >= hSimilar {
				groups[g] = append(groups[g], in)
				joined = true
				break
			}
		}
		if !joined {
			groups = append(groups, []instruction{in})
		}
	}
	var out []anchored
	for _, g := range groups {
		var prompts []int
		var said []string
		for _, in := range g {
			if !slices.Contains(prompts, in.prompt) {
				prompts = append(prompts, in.prompt)
				said = append(said, in.text)
			}
		}
		if len(prompts) < 2 {
			continue
		}
		title := correction.Title(g[0].text)
		if title == "" {
			continue
		}
		var col collector
		var b strings.Builder
		fmt.Fprintf(&b, "%s.\n\nSaid in %d prompts of the session:\n\n", title, len(prompts))
		for _, s := range said {
			col.prose(s)
			b.WriteString("- \"" + clipWords(s, hBodySaid) + "\"\n")
		}
		out = append(out, anchored{prompts[1], Proposal{
			Title: title, Body: b.String(), Kind: "preference", Confidence: "medium",
			Tags: col.tagList(), Entities: col.entities(), Files: col.files.list, Global: saysGlobal(strings.Join(said, "\n")),
			evidence: true,
		}})
	}
	return out
}

var (
	instrFiller = []string{"please", "pls", "plz", "and", "also", "just", "no", "nope", "ok", "okay", "so", "but",
		"then", "again", "actually", "really", "seriously", "hey", "like i said", "as i said", "i said", "once more"}
	instrVerbs = []string{"use", "don't", "dont", "do not", "never", "always", "stop", "avoid", "prefer"}
	instrNeg   = []string{"don't", "dont", "do not", "never", "stop", "avoid"}
	sentenceRe = lazyregexp.New(`[.!?;]+(?:\s+|$)`)
)

// instructions returns the imperative clauses of a prompt, as written: per sentence, the
// first clause (at the start or after a comma or dash) that starts, after fillers such as
// "no," or "please", with use / don't / never / always / stop / avoid / prefer.
func instructions(prompt string) []string {
	var out []string
	fence := false
	for raw := range strings.Lines(prompt) {
		line := strings.TrimSpace(raw)
		if strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~") {
			fence = !fence
			continue
		}
		if fence || line == "" {
			continue
		}
		line = strings.TrimLeft(line, "-*+># ")
		line = strings.NewReplacer("’", "'", "‘", "'", "“", `"`, "”", `"`).Replace(line)
		for _, s := range sentenceRe.Split(line, -1) {
			if c := imperativeClause(s); c != "" {
				out = append(out, c)
			}
		}
	}
	return out
}

func imperativeClause(s string) string {
	starts := []int{0}
	for i := 0; i < len(s); i++ {
		if (s[i] == ',' || s[i] == ':') && i+1 < len(s) && s[i+1] == ' ' {
			starts = append(starts, i+2)
		} else if strings.HasPrefix(s[i:], " - ") || strings.HasPrefix(s[i:], " — ") {
			starts = append(starts, i+len(" - "))
		}
	}
	for _, st := range starts {
		rest := strings.TrimSpace(s[st:])
		for {
			lo := strings.ToLower(rest)
			trimmed := false
			for _, f := range instrFiller {
				if hasWordPrefix(lo, f) {
					rest = strings.TrimLeft(rest[len(f):], " ,!")
					trimmed = true
					break
				}
			}
			if !trimmed {
				break
			}
		}
		lo := strings.ToLower(rest)
		for _, v := range instrVerbs {
			if hasWordPrefix(lo, v) {
				return strings.TrimRight(rest, " ,:-")
			}
		}
		// "slog please, not log.Printf": a choice between two things is "use" without the verb
		if m := contrastRe.FindStringSubmatch(rest); m != nil {
			return "use " + m[1] + ", not " + m[2]
		}
	}
	return ""
}

// contrastRe: one or two words, perhaps "please", then ", not" and the thing not to use.
var contrastRe = lazyregexp.New(`^([\w./@-]+(?: [\w./@-]+)?)(?: please| pls)?, not ([\w./@-]+)`)

func negative(s string) bool {
	lo := strings.ToLower(s)
	for _, v := range instrNeg {
		if hasWordPrefix(lo, v) {
			return true
		}
	}
	return false
}

// hasWordPrefix reports whether s starts with the word (or words) w.
func hasWordPrefix(s, w string) bool {
	if !strings.HasPrefix(s, w) {
		return false
	}
	if len(s) == len(w) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(s[len(w):])
	return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
}
