package correction

// The correction classifier and the remember-note extractor. Both run inside the
// UserPromptSubmit hook's 500 ms capture budget with no LLM, so they are plain
// cue tables over a normalised prompt.
//
// Classify, in order:
//
//  1. The head: the first two non-empty lines of the prompt, skipping fenced code
//     blocks, cut at 400 bytes. A correction is said first; a pasted log whose
//     tenth line reads "something went wrong" is not one.
//  2. Normalise each line: drop markdown prefixes (> # - * + "1.") and wrapping
//     quotes, drop ** and __, map typographic quotes and dashes to ASCII, collapse
//     white space, lower-case. Inline `code` spans are masked in the copy the cues
//     read, so `// don't panic` in backticks is never a cue; a second copy keeps
//     case and code for extracting Instead and Avoid.
//  3. Positive cues carry weights in (0,1) and combine as a noisy OR,
//     1 - Π(1 - w), so two weak cues ("actually," 0.3 + "use X" 0.3) make one
//     correction (0.51) and a strong one ("that's wrong" 0.8) is enough alone.
//  4. Negative cues subtract: approval ("yes that's right", "great job") 0.45
//     unless a "but"/"however"/"though" follows it, thanks 0.2, neutral "wrong"
//     ("what went wrong", "something is wrong with") 0.25, and 0.3 for a first
//     line that is an ordinary question (starts with what/how/is/can/…, ends
//     with "?") unless an accusing-question cue ("why did you", "who told you
//     to") matched.
//  5. The prompt is a correction when the score reaches threshold (0.5).
//
// Imperative cues ("don't", "never", "stop …ing", "revert that", "use X") count
// only at the start of a clause (start of line, after punctuation, or after
// "no", "please", "and", "but", "just", …), which is what separates
// "don't use npm" from "write a test that checks we don't crash".
//
// "X instead of Y" is a correction only with a leading negation or a choosing
// verb ("no, return an error instead", "use a map instead of a slice"); a bare
// "return an error instead of panicking in parse()" reads as a feature request
// and scores 0.25. A clause that ends in "instead" ("put it in the handler
// instead.") replaces something the agent did and scores 0.5. A bare "use X to
// do Y" is an ordinary request (0.3), even right after a failure.
//
// Instead and Avoid are read from the case-kept copy: the object of a choosing
// verb ("use X", "switch to X", "X, not Y", "not Y, X", "instead of Y use X"),
// "you keep using Y instead of X" read the other way round; Avoid is an object
// after "don't use"/"stop using"/"you don't need", else the verb phrase after
// "don't"/"never"/"stop"/"no need to" ("run the migrations against prod").
//
// Cost: a cue is tried only where one of its anchor words starts, only when
// one of its keywords is among the head's words (a 2048-bit Bloom filter), and
// its regexp runs anchored on at most 128 bytes. Scanning the whole head with
// fifty unanchored regexps cost 100–200 µs for a 2 KB prompt; this costs 5–10
// µs for a correction or a log, 25–30 µs for a head that is cues from end to
// end (BenchmarkClassify, 2 vCPUs).

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Verdict is how Classify reads a prompt: how sure it is that the prompt corrects the agent,
// and what the correction names.
type Verdict struct {
	Score   float64 // 0..1, how sure the classifier is
	Cue     string  // the phrase that triggered it, e.g. "use … instead"
	Instead string  // the preferred alternative when the prompt names one ("pnpm" in "no, use pnpm instead of npm"), else ""
	Avoid   string  // what to stop doing when named ("npm"), else ""
}

const (
	threshold = 0.5
	headLines = 2
	headBytes = 400
	// scanBytes bounds the bytes read while looking for the head
	// (fenced blocks are skipped) and for a remember note.
	scanBytes       = 8 << 10
	rememberNoteMax = 300
	titleMax        = 80
	titleScanBytes  = 1 << 10
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
	re       *lazyRe
	question bool // an accusing question: the ordinary-question penalty does not apply
	// reject, when set, vetoes a match (indices into lo, with submatches).
	reject func(lo string, m []int) bool
	neg    bool // subtract w instead of adding to the noisy OR
	unless bool // for a negative: skipped when "but"/"however"/"though" follows
}

// anchoredRe compiles a cue pattern anchored where it is tried.
func anchoredRe(s string) *lazyRe { return newLazyRe(`^(?:` + s + `)`) }

var (
	subjectAnchors = []string{"that", "thats", "this", "it", "its", "what", "your"}
	youAnchors     = []string{"you", "youre"}
	chooserAnchors = []string{"use", "using", "try", "prefer", "go", "switch", "stick", "pick", "choose"}
)

var cues = []cue{
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

// cuesByAnchor maps an anchor word to the cues tried where it starts; built
// once from cues and never written again.
var cuesByAnchor = func() map[string][]int {
	m := make(map[string][]int)
	for i, c := range cues {
		for _, a := range c.anchors {
			m[a] = append(m[a], i)
		}
	}
	return m
}()

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

// wordAt returns the run of letters starting at i.
func wordAt(s string, i int) string {
	if i < 0 || i >= len(s) {
		return ""
	}
	j := i
	for j < len(s) && (s[j] >= 'a' && s[j] <= 'z' || s[j] == '\'') {
		j++
	}
	return s[i:j]
}

// questionStart are first words of an ordinary question.
var questionStart = map[string]bool{"what": true, "how": true, "where": true, "when": true, "which": true, "who": true,
	"is": true, "are": true, "does": true, "do": true, "can": true, "could": true, "would": true, "will": true,
	"should": true, "has": true, "have": true, "any": true, "did": true, "was": true, "were": true, "whats": true, "what's": true, "hows": true, "how's": true}

// Classify reports whether prompt reads as a correction of what the agent just did.
// When ok is false, only Score is meaningful.
func Classify(prompt string) (Verdict, bool) {
	lo, cs, first := head(prompt)
	if strings.TrimSpace(lo) == "" {
		return Verdict{}, false
	}

	keep := 1.0
	best, bestW := "", 0.0
	question := false
	hits := 0
	neg := 0.0

	noW, noLabel, noAfter := leadingNo(lo)
	if noW > 0 {
		keep *= 1 - noW
		best, bestW = noLabel, noW
		hits = 1
	}
	var words wordSet
	eachWord(lo, func(p, q int) bool { words.add(lo[p:q]); return true })
	// state: 0 untried, 1 its keywords are in the head, -1 matched or hopeless.
	var state [maxCues]int8
	try := func(p int, word string) {
		for _, ci := range cuesByAnchor[word] {
			c := &cues[ci]
			if state[ci] == 0 {
				state[ci] = 1
				if c.kw != nil && !words.hasAny(c.kw) {
					state[ci] = -1
				}
			}
			if state[ci] < 0 || c.cs && !clauseStart(lo, p) {
				continue
			}
			m := c.re.FindStringSubmatchIndex(lo[p:min(len(lo), p+cueWindow)])
			if m == nil {
				continue
			}
			for k := range m {
				if m[k] >= 0 {
					m[k] += p
				}
			}
			if c.reject != nil && c.reject(lo, m) {
				continue
			}
			state[ci] = -1
			switch {
			case c.neg:
				if !c.unless || !hasContrast(lo[m[1]:]) {
					neg += c.w
				}
			default:
				keep *= 1 - c.w
				hits++
				if c.w > bestW {
					best, bestW = c.label, c.w
				}
				question = question || c.question
			}
		}
	}
	try(0, "")
	eachWord(lo, func(p, q int) bool { try(p, lo[p:q]); return true })
	score := 1 - keep - neg
	if !question && isQuestion(lo[:first]) {
		score -= 0.3
	}
	score = max(0, min(1, score))

	c := Verdict{Score: score, Cue: best}
	if score < threshold {
		return c, false
	}
	if noW == 0 || hits > 1 {
		noAfter = 0 // "no, pnpm" names pnpm only when "no" is the sole cue
	}
	c.Instead, c.Avoid = extract(lo, cs, noAfter)
	return c, true
}

// wordSet is a 2048-bit Bloom filter (two probes) of the words in a head;
// a false positive only costs one regexp attempt.
type wordSet [32]uint64

func wordHash(w string) (uint32, uint32) {
	h := uint32(2166136261)
	for i := 0; i < len(w); i++ {
		h = (h ^ uint32(w[i])) * 16777619
	}
	return h & 2047, (h >> 16) & 2047
}

func (s *wordSet) add(w string) {
	a, b := wordHash(w)
	s[a>>6] |= 1 << (a & 63)
	s[b>>6] |= 1 << (b & 63)
}

func (s *wordSet) hasAny(ws []string) bool {
	for _, w := range ws {
		a, b := wordHash(w)
		if s[a>>6]&(1<<(a&63)) != 0 && s[b>>6]&(1<<(b&63)) != 0 {
			return true
		}
	}
	return false
}

func isWordByte(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

// cueWindow bounds the text a cue's anchored regexp reads: longer than any
// cue can match, so "$" at the window's end never matches short of the head's
// end, and short enough that a dense head stays cheap.
const cueWindow = 128

// maxCues bounds cues so a match set fits in an array on the stack.
const maxCues = 96

func hasContrast(s string) bool {
	return strings.Contains(s, " but ") || strings.Contains(s, "however") || strings.Contains(s, "though") ||
		strings.HasPrefix(s, " but") || strings.HasPrefix(s, ", but")
}

func isQuestion(line string) bool {
	line = strings.TrimSpace(line)
	if !strings.HasSuffix(line, "?") {
		return false
	}
	w := wordAt(line, 0)
	return questionStart[w]
}

// leadingNo scores a prompt that opens with "no"/"nope"/"nah", after an
// interjection ("hmm, no, …"). "no problem", "no worries", "no, that's fine"
// and "no tests were run" are not corrections. It also returns where the text
// after the "no" starts, for extract.
func leadingNo(lo string) (w float64, label string, after int) {
	word := wordAt(lo, 0)
	i := len(word)
	if interjections[word] {
		for i < len(lo) && strings.IndexByte(" ,.!-", lo[i]) >= 0 {
			i++
		}
		word = wordAt(lo, i)
		i += len(word)
	}
	switch {
	case word == "nope" || word == "nah" || word == "nop":
		w, label = 0.65, "nope"
	case len(word) >= 2 && word[0] == 'n' && strings.Trim(word[1:], "o") == "":
		w, label = 0.6, "no, …"
	default:
		return 0, "", 0
	}
	j := i
	for j < len(lo) && strings.IndexByte(" ,.!;:-\n", lo[j]) >= 0 {
		j++
	}
	rest := lo[j:]
	if rest == "" {
		return w, label, j
	}
	if strings.ContainsAny(lo[i:j], ",.!;:-\n") {
		for _, p := range noDismissals {
			if strings.HasPrefix(rest, p) {
				return 0, "", 0
			}
		}
		return w, label, j
	}
	if noRebuttals[wordAt(rest, 0)] {
		return w, label, j
	}
	return 0, "", 0
}

// interjections may come before a leading "no".
var interjections = map[string]bool{"hmm": true, "hmmm": true, "um": true, "uh": true, "ah": true, "oh": true,
	"well": true, "erm": true, "ugh": true, "wait": true, "actually": true}

// noDismissals are what follows "no," in a dismissal or an answer that is not a correction.
var noDismissals = []string{"thanks", "thank", "problem", "prob", "worries", "worry", "it's fine", "its fine", "that's fine",
	"thats fine", "that's ok", "thats ok", "that's okay", "all good", "that's all", "nothing else", "i'm good", "im good",
	"we're good", "not now", "not yet", "later", "rush", "need to", "need for", "that's right", "that's correct",
	"that works", "it works", "looks good", "you're right", "you are right", "good", "great", "perfect", "i don't think so",
	"go ahead", "carry on", "continue", "keep going", "proceed", "that's it", "that's all", "nothing", "not really"}

// noRebuttals are words that make "no <word> …" (without a comma) a rebuttal.
var noRebuttals = map[string]bool{"that's": true, "thats": true, "that": true, "this": true, "it's": true, "its": true,
	"not": true, "don't": true, "dont": true, "do": true, "use": true, "you": true, "i": true, "stop": true, "wait": true,
	"no": true, "please": true, "wrong": true, "just": true, "revert": true, "undo": true, "never": true, "actually": true,
	"why": true, "try": true, "we": true, "the": true, "nope": true, "what": true, "you're": true, "your": true}

// head returns the normalised head of prompt: lo for the cues, cs with case
// and code kept (byte-aligned with lo), and the end of the first line in both.
func head(prompt string) (lo, cs string, firstEnd int) {
	var bl, bc []byte
	lines := 0
	fence := ""
	scan := prompt
	if len(scan) > scanBytes {
		scan = scan[:scanBytes]
	}
	for scan != "" && lines < headLines && len(bl) < headBytes {
		var line string
		if k := strings.IndexByte(scan, '\n'); k >= 0 {
			line, scan = scan[:k], scan[k+1:]
		} else {
			line, scan = scan, ""
		}
		t := strings.TrimSpace(line)
		if f := fenceMark(t); f != "" {
			if fence == "" {
				fence = f
			} else if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		if fence != "" {
			continue
		}
		// Normalising never lengthens a line, so the raw bytes past the budget are not needed.
		if room := headBytes - len(bl) + 8; len(t) > room {
			for room > 0 && !utf8.RuneStart(t[room]) {
				room--
			}
			t = t[:room]
		}
		l, c := normLine(t)
		if l == "" {
			continue
		}
		if lines > 0 {
			bl = append(bl, '\n')
			bc = append(bc, '\n')
		}
		bl = append(bl, l...)
		bc = append(bc, c...)
		lines++
		if lines == 1 {
			firstEnd = len(bl)
		}
	}
	if len(bl) > headBytes {
		n := headBytes
		for n > 0 && !utf8.RuneStart(bc[n]) {
			n--
		}
		bl, bc = bl[:n], bc[:n]
	}
	firstEnd = min(firstEnd, len(bl))
	return string(bl), string(bc), firstEnd
}

func fenceMark(t string) string {
	switch {
	case strings.HasPrefix(t, "```"):
		return "```"
	case strings.HasPrefix(t, "~~~"):
		return "~~~"
	}
	return ""
}

// normLine normalises one trimmed line. The two results have the same
// length and rune boundaries; lo is lower-cased with inline code masked.
func normLine(t string) (lo, cs string) {
	quoted := false
	for {
		t0 := t
		t = strings.TrimLeft(t, " \t")
		switch {
		case strings.HasPrefix(t, ">"):
			t = t[1:]
		case strings.HasPrefix(t, "#"):
			t = strings.TrimLeft(t, "#")
		case strings.HasPrefix(t, "- "), strings.HasPrefix(t, "* "), strings.HasPrefix(t, "+ "):
			t = t[2:]
		default:
			if n := listNumber(t); n > 0 {
				t = t[n:]
			} else if r, size := utf8.DecodeRuneInString(t); size > 0 && strings.ContainsRune(`"'“”‘’`, r) && !strings.HasPrefix(t, "'s") {
				t = t[size:]
				quoted = true
			}
		}
		if t == t0 {
			break
		}
	}
	if quoted {
		t = strings.TrimRight(t, ` "'“”‘’`)
	}

	bl := make([]byte, 0, len(t))
	bc := make([]byte, 0, len(t))
	space := true // drop leading space
	for i := 0; i < len(t); {
		if c := t[i]; c < utf8.RuneSelf { // ASCII, the common case
			switch {
			case (c == '*' || c == '_') && i+1 < len(t) && t[i+1] == c:
				i += 2
			case c <= ' ' || c == 0x7f:
				i++
				if !space {
					bl = append(bl, ' ')
					bc = append(bc, ' ')
					space = true
				}
			default:
				i++
				space = false
				bc = append(bc, c)
				if c >= 'A' && c <= 'Z' {
					c += 'a' - 'A'
				}
				bl = append(bl, c)
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(t[i:])
		i += size
		switch r {
		case '’', '‘', 'ʼ', '′', '´':
			r = '\''
		case '“', '”', '„', '″':
			r = '"'
		case '—', '–', '‒', '―':
			r = '-'
		}
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == utf8.RuneError && size == 1 {
			if !space {
				bl = append(bl, ' ')
				bc = append(bc, ' ')
				space = true
			}
			continue
		}
		space = false
		l := r
		if r >= 'A' && r <= 'Z' {
			l = r + 'a' - 'A'
		} else if r >= utf8.RuneSelf {
			if lr := unicode.ToLower(r); utf8.RuneLen(lr) == utf8.RuneLen(r) {
				l = lr
			}
		}
		bl = utf8.AppendRune(bl, l)
		bc = utf8.AppendRune(bc, r)
	}
	for len(bl) > 0 && bl[len(bl)-1] == ' ' {
		bl, bc = bl[:len(bl)-1], bc[:len(bc)-1]
	}
	// Mask inline code in lo: "`// don't panic`" must not read as "don't".
	for i := 0; i < len(bl); i++ {
		if bl[i] != '`' {
			continue
		}
		j := i + 1
		for j < len(bl) && bl[j] != '`' {
			j++
		}
		if j >= len(bl) {
			break
		}
		for k := i + 1; k < j; k++ {
			bl[k] = 'x'
		}
		i = j
	}
	return string(bl), string(bc)
}

// listNumber returns the length of a "12. " or "3) " list marker, else 0.
func listNumber(t string) int {
	i := 0
	for i < len(t) && i < 3 && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 || i+1 >= len(t) || (t[i] != '.' && t[i] != ')') || t[i+1] != ' ' {
		return 0
	}
	return i + 2
}

// Extraction of Instead and Avoid.

var (
	// Tried where their first word starts (see eachWord).
	reChoose  = newLazyRe(`^(?:use|using|prefer|go with|go for|switch to|switch back to|stick with|stick to|try|pick|choose)\s+`)
	reNegVerb = newLazyRe(`^(?:don'?t|do not|never|stop|quit|no more|no need to|no need for|avoid|you (?:don'?t|do not) need(?: to)?)\s+(?:ever\s+|even\s+)?`)

	reCommaNot = newLazyRe(`,\s*not\s+`)
	reLeadNot  = newLazyRe(`^(?:(?:nope|nah|no+)\W*\s*)?not\s+`)
	reAfterAlt = newLazyRe(`^\s*[,;-]?\s*(?:but\s+|use\s+|rather\s+|it'?s\s+|instead\s+)?`)
	reLinkWord = newLazyRe(`\b(?:in|into|inside|to|from|at|on|under|with|is|are|be|use|using|call|run)\s+`)
	reClauseX  = newLazyRe(`^(?:(?:nope|nah|no+)\W*\s*)?(?:it'?s|it is|it should be|should be|that should be|i want|we use|i meant|i said|use|the answer is)?\s*`)
)

var (
	chooseWords  = map[string]bool{"use": true, "using": true, "prefer": true, "go": true, "switch": true, "stick": true, "try": true, "pick": true, "choose": true}
	negVerbWords = map[string]bool{"don": true, "dont": true, "do": true, "never": true, "stop": true, "quit": true, "no": true, "avoid": true}
)

// eachWord calls f with the bounds of each word of lo (a run of [a-z0-9])
// until f returns false.
func eachWord(lo string, f func(p, q int) bool) {
	for p := 0; p < len(lo); {
		if !isWordByte(lo[p]) {
			p++
			continue
		}
		q := p
		for q < len(lo) && isWordByte(lo[q]) {
			q++
		}
		if !f(p, q) {
			return
		}
		p = q
	}
}

// findAt returns the matches of the anchored re tried at each word of lo
// for which ok holds, as [start, end) pairs, at most n.
func findAt(lo string, re *lazyRe, n int, ok func(word string, p int) bool) [][2]int {
	var out [][2]int
	eachWord(lo, func(p, q int) bool {
		if ok(lo[p:q], p) {
			if m := re.FindStringIndex(lo[p:min(len(lo), p+cueWindow)]); m != nil {
				out = append(out, [2]int{p, p + m[1]})
			}
		}
		return len(out) < n
	})
	return out
}

// extract finds the preferred alternative and the thing to avoid.
// noAfter, when not 0, is where the text after a lone leading "no" starts:
// "no, pnpm" names pnpm.
func extract(lo, cs string, noAfter int) (instead, avoid string) {
	// "use X [instead of Y | rather than Y | , not Y]"; "don't use Y" gives Avoid.
	choose := findAt(lo, reChoose, 6, func(w string, _ int) bool { return chooseWords[w] })
	for _, m := range choose {
		verb := strings.TrimSpace(lo[m[0]:m[1]])
		if negatedBefore(lo[:m[0]]) {
			if avoid == "" && (verb == "use" || verb == "using") {
				avoid, _ = phrase(lo, cs, m[1], false)
			}
			continue
		}
		if agentBefore(lo[:m[0]]) {
			// "you keep using var instead of :=": what it did, then what to do.
			y, end := phrase(lo, cs, m[1], false)
			if avoid == "" {
				avoid = y
			}
			r := strings.TrimLeft(lo[end:], " ,")
			for _, p := range []string{"instead of ", "rather than "} {
				if strings.HasPrefix(r, p) && instead == "" {
					instead, _ = phrase(lo, cs, len(lo)-len(r)+len(p), false)
				}
			}
			continue
		}
		if instead != "" {
			continue
		}
		x, end := phrase(lo, cs, m[1], false)
		if x == "" {
			continue
		}
		rest := lo[end:]
		switch r := strings.TrimLeft(rest, " ,"); {
		case strings.HasPrefix(r, "instead of "), strings.HasPrefix(r, "rather than "):
			if avoid == "" {
				avoid, _ = phrase(lo, cs, len(lo)-len(r)+len("instead of "), false)
				if strings.HasPrefix(r, "rather") {
					avoid, _ = phrase(lo, cs, len(lo)-len(r)+len("rather than "), false)
				}
			}
		case strings.HasPrefix(r, "not "):
			if avoid == "" {
				avoid, _ = phrase(lo, cs, len(lo)-len(r)+len("not "), false)
			}
		case strings.HasPrefix(r, "instead"), strings.HasPrefix(r, "rather"):
		default:
			if verb == "try" || verb == "pick" || verb == "choose" || verb == "go for" {
				continue // "try running it again" names no alternative
			}
		}
		instead = x
	}

	// "instead of Y[,] use X"
	if k := strings.Index(lo, "instead of "); k >= 0 {
		y, end := phrase(lo, cs, k+len("instead of "), false)
		if avoid == "" {
			avoid = y
		}
		if instead == "" {
			r := strings.TrimLeft(lo[end:], " ,")
			r = strings.TrimPrefix(r, "please ")
			r = strings.TrimPrefix(r, "just ")
			for _, v := range []string{"use ", "try ", "go with ", "switch to "} {
				if strings.HasPrefix(r, v) {
					instead, _ = phrase(lo, cs, len(lo)-len(r)+len(v), false)
					break
				}
			}
		}
	}

	// "not Y, X"
	if m := reLeadNot.FindStringIndex(lo); m != nil {
		y, end := phrase(lo, cs, m[1], false)
		if y != "" && !hedgeAfterNot(lo, m[1]) && !notDegree[wordAt(lo, m[1])] {
			if a := reAfterAlt.FindStringIndex(lo[end:]); a != nil && a[1] > 0 && instead == "" {
				instead, _ = phrase(lo, cs, end+a[1], false)
			}
			if avoid == "" {
				avoid = y
			}
		}
	}

	// "X, not Y": X is the clause before the comma.
	if instead == "" || avoid == "" {
		for _, m := range reCommaNot.FindAllStringIndex(lo, 4) {
			if hedgeAfterNot(lo, m[1]) || m[0] == 0 {
				continue
			}
			start := strings.LastIndexAny(lo[:m[0]], ".;:!?\n") + 1
			for start < m[0] && lo[start] == ' ' {
				start++
			}
			start = max(start, m[0]-80)
			if p := reClauseX.FindStringIndex(lo[start:m[0]]); p != nil {
				start += p[1]
			}
			// "the tests are in pkg/foo, not pkg/bar": the alternative follows the last link word.
			if p := reLinkWord.FindAllStringIndex(lo[start:m[0]], -1); p != nil {
				start += p[len(p)-1][1]
			}
			x := strings.TrimSpace(cs[start:m[0]])
			if x == "" || strings.Count(x, " ") > 5 {
				continue
			}
			if instead == "" {
				instead = trimPhrase(x)
			}
			if avoid == "" {
				avoid, _ = phrase(lo, cs, m[1], false)
			}
			break
		}
	}

	// "don't run the migrations", "stop adding comments", "never use npm".
	if avoid == "" {
		neg := findAt(lo, reNegVerb, 4, func(w string, p int) bool {
			return w == "you" || negVerbWords[w] && clauseStart(lo, p)
		})
		for _, m := range neg {
			w := wordAt(lo, m[1])
			if w == "" || w == "know" || w == "worry" || w == "mind" || w == "forget" || w == "think" {
				continue
			}
			mt := strings.TrimSpace(lo[m[0]:m[1]])
			if w == "use" || w == "using" {
				avoid, _ = phrase(lo, cs, m[1]+len(w)+1, false)
			} else if strings.HasSuffix(mt, "need") {
				avoid, _ = phrase(lo, cs, m[1], false) // "you don't need sudo"
			} else {
				avoid, _ = phrase(lo, cs, m[1], true)
			}
			if avoid != "" {
				break
			}
		}
	}

	// "no, pnpm"
	if instead == "" && noAfter > 0 && noAfter < len(lo) {
		if x, end := phrase(lo, cs, noAfter, false); x != "" && strings.TrimSpace(strings.Trim(lo[end:], ".! \n")) == "" && strings.Count(x, " ") < 3 {
			instead = x
		}
	}
	if pronouns[strings.ToLower(instead)] {
		instead = ""
	}
	if pronouns[strings.ToLower(avoid)] {
		avoid = ""
	}
	return instead, avoid
}

// pronouns are phrases that name nothing on their own ("stop it").
var pronouns = map[string]bool{"it": true, "that": true, "this": true, "them": true, "those": true, "these": true,
	"one": true, "so": true, "again": true, "now": true}

// agentBefore reports whether the text just before a verb says the agent
// did it ("you keep using", "why did you use").
func agentBefore(before string) bool {
	before = strings.TrimRight(before, " ")
	for _, n := range []string{"you keep", "you kept", "you", "you're", "you are", "you were", "you've been", "you have been", "you still", "why are you", "why did you", "why would you"} {
		if strings.HasSuffix(before, n) {
			k := len(before) - len(n)
			if k == 0 || !(before[k-1] >= 'a' && before[k-1] <= 'z') {
				return true
			}
		}
	}
	return false
}

// negatedBefore reports whether the text just before a verb negates it.
func negatedBefore(before string) bool {
	before = strings.TrimRight(before, " ")
	for _, n := range []string{"don't", "dont", "do not", "never", "stop", "not", "not to", "never to", "no more", "quit", "avoid", "shouldn't", "should not", "didn't", "did not"} {
		if strings.HasSuffix(before, n) {
			k := len(before) - len(n)
			if k == 0 || !(before[k-1] >= 'a' && before[k-1] <= 'z') {
				return true
			}
		}
	}
	return false
}

// objectStops ends an object phrase ("pnpm" in "use pnpm to install deps").
var objectStops = map[string]bool{"instead": true, "not": true, "rather": true, "for": true, "to": true, "in": true,
	"on": true, "at": true, "when": true, "because": true, "since": true, "so": true, "and": true, "but": true,
	"like": true, "here": true, "there": true, "please": true, "as": true, "from": true, "then": true, "again": true,
	"now": true, "anymore": true, "if": true, "unless": true, "which": true, "with": true, "always": true,
	"everywhere": true, "too": true, "also": true, "ever": true, "thanks": true, "thx": true, "pls": true, "over": true,
	"or": true, "this": false, "going": true, "from now on": true, "it's": true, "is": true, "was": true,
	"i": true, "we": true, "you": true, "only": true, "use": true, "try": true}

// clauseStops ends a verb phrase ("run the migrations in prod" in "don't run the migrations in prod, …").
var clauseStops = map[string]bool{"instead": true, "but": true, "because": true, "since": true, "unless": true,
	"please": true, "thanks": true, "thx": true, "again": true, "anymore": true, "ever": true, "use": true, "just": true}

// phrase reads the phrase that starts at i: up to 6 words for an object,
// 10 for a clause, ending at punctuation or a stop word. It returns the phrase
// with its case (from cs) and the index where it ends.
func phrase(lo, cs string, i int, clause bool) (string, int) {
	maxTok, stop := 6, objectStops
	if clause {
		maxTok, stop = 10, clauseStops
	}
	for i < len(lo) && lo[i] == ' ' {
		i++
	}
	start, end := i, i
	for n := 0; n < maxTok && i < len(lo) && lo[i] != '\n'; n++ {
		j := i
		quoted := lo[i] == '`' || lo[i] == '"'
		if quoted {
			if k := strings.IndexByte(lo[i+1:], lo[i]); k >= 0 {
				j = i + 1 + k + 1
			} else {
				quoted = false
			}
		}
		if !quoted {
			for j < len(lo) && lo[j] != ' ' && lo[j] != '\n' && !(lo[j] == '`' && j > i) {
				j++
			}
		}
		word := lo[i:j]
		if !quoted {
			word = strings.TrimRight(word, ",;:!?).")
		}
		if word == "" || stop[word] || word == "-" || word == "--" || word == "–" || word == "—" || (word == "this" || word == "next") && strings.HasPrefix(lo[j:], " time") {
			break
		}
		end = i + len(word)
		if end < j || j < len(lo) && strings.IndexByte(",;:!?.)", lo[j]) >= 0 {
			break // punctuation ends the phrase
		}
		i = j
		for i < len(lo) && lo[i] == ' ' {
			i++
		}
	}
	if end <= start {
		return "", start
	}
	return trimPhrase(cs[start:end]), end
}

func trimPhrase(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimRight(s, ",;:!?.")
	if len(s) >= 2 && (s[0] == '`' && s[len(s)-1] == '`' || s[0] == '"' && s[len(s)-1] == '"') && !strings.ContainsAny(s[1:len(s)-1], "`\"") {
		s = s[1 : len(s)-1]
	}
	s = strings.TrimSpace(s)
	if len(s) > titleMax {
		s = cutWords(s, titleMax)
	}
	return s
}

// Remember extracts an explicit note-to-self from a prompt: "remember: X",
// "remember that X", "please remember X", "note for the future: X", "from now on
// X", "going forward, X", "for future reference, X" → X (trimmed, first sentence
// or line up to ~300 chars); ok=false otherwise.
//
// A marker counts only at the start of a clause (line start, after . ! ? ; or a
// comma, or after "and", "also", "btw", "but", "please", "oh"), outside code, so
// "do you remember the API?", "I can't remember" and "make the widget remember
// its position" are not notes. "remember to X" is a task reminder unless the
// rest of the sentence makes it standing ("always", "every time", "before
// committing", "from now on", …): "remember to free the buffer" is not a note,
// "remember to run go vet before committing" is. "always X"/"never X" at the
// start of a sentence are standing instructions and become the note whole
// ("Always use pnpm here"), except "never mind" and a verb in the third person
// ("always returns nil" describes code). A note that ends in "?" is a question,
// not a note.
func Remember(prompt string) (note string, ok bool) {
	scan := prompt[:min(len(prompt), scanBytes)]
	stem := rememberNextStem(scan, 0)
	if stem < 0 {
		return "", false
	}
	fence := ""
	for off := 0; off < len(scan) && stem >= 0; {
		end := strings.IndexByte(scan[off:], '\n')
		if end < 0 {
			end = len(scan)
		} else {
			end += off
		}
		t := strings.TrimSpace(scan[off:end])
		hasStem := stem < end
		following := scan[min(end+1, len(scan)):]
		off = end + 1
		if hasStem {
			stem = rememberNextStem(scan, off)
		}
		if f := fenceMark(t); f != "" {
			if fence == "" {
				fence = f
			} else if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		if fence != "" || t == "" || !hasStem {
			continue
		}
		lo, cs := normLine(t)
		eachWord(lo, func(p, q int) bool {
			if !rememberAnchors[lo[p:q]] || !rememberClauseStart(lo, p) {
				return true
			}
			m := rememberRe.FindStringSubmatchIndex(lo[p:min(len(lo), p+cueWindow)])
			if m == nil {
				return true
			}
			for k := range m {
				if m[k] >= 0 {
					m[k] += p
				}
			}
			note, ok = rememberAt(lo, cs, m, following)
			return !ok
		})
		if ok {
			return note, true
		}
	}
	return "", false
}

// rememberNextStem returns the offset of the first word at or after i, in
// any case, that is part of every marker ("remember", "note", "always", …),
// or -1: lines before it are not normalised.
func rememberNextStem(s string, i int) int {
	var buf [10]byte
	for p := i; p < len(s); {
		if c := s[p] | 0x20; c < 'a' || c > 'z' {
			p++
			continue
		}
		q, n := p, 0
		for ; q < len(s); q++ {
			c := s[q] | 0x20
			if c < 'a' || c > 'z' {
				break
			}
			if n < len(buf) {
				buf[n] = c
			}
			n++
		}
		if n <= len(buf) {
			switch string(buf[:n]) {
			case "remember", "note", "reference", "forward", "future", "henceforth", "always", "never", "now", "here", "next":
				return p
			}
		}
		p = q
	}
	return -1
}

// rememberAnchors are the first words of the markers rememberRe reads.
var rememberAnchors = map[string]bool{"remember": true, "note": true, "for": true, "from": true, "going": true,
	"henceforth": true, "moving": true, "in": true, "next": true, "always": true, "never": true}

// rememberRe reads a marker where an anchor starts a clause; group 1 is
// "remember", 2 a marker whose text follows, 3 "always"/"never".
var rememberRe = anchoredRe(`(remember)\b` +
	`|(note (?:for|to) (?:the )?(?:future(?: self| sessions| reference| runs)?|self|yourself|later|next time)|for (?:future|later) reference|from now on|from here on(?: out)?|going forward|henceforth|moving forward,|in (?:the )?future,|for the future,|next time,|in future sessions)` +
	`|(always|never)\s`)

// rememberLead are words after which a marker may start.
var rememberLead = map[string]bool{"and": true, "also": true, "btw": true, "but": true, "please": true, "pls": true,
	"plz": true, "oh": true, "plus": true, "ps": true}

// rememberClauseStart reports whether a marker at p starts a clause: the
// line's start, after . ! ? ; : or a comma, or after "and", "also", "please", ….
func rememberClauseStart(lo string, p int) bool {
	i := p
	for i > 0 && lo[i-1] == ' ' {
		i--
	}
	if i == 0 || strings.IndexByte(".!?;:,", lo[i-1]) >= 0 {
		return true
	}
	j := i
	for j > 0 && isWordByte(lo[j-1]) {
		j--
	}
	return j < i && rememberLead[lo[j:i]]
}

var rememberStanding = newLazyRe(`\b(?:always|every time|each time|whenever|in (?:the )?future|from now on|going forward|next time|in every|on every|before (?:every|each|any|committing|pushing|merging|releasing|deploying|you (?:commit|push|merge|release|deploy)|a (?:commit|push|release|merge|deploy))|after (?:every|each|any))\b`)

func rememberAt(lo, cs string, m []int, following string) (string, bool) {
	switch {
	case m[2] >= 0: // remember
		i := m[3]
		rest := lo[i:]
		explicit := false
		for _, p := range []string{" that ", ":", " -", " this:", ",", " this,"} {
			if strings.HasPrefix(rest, p) {
				i += len(p)
				explicit = true
				break
			}
		}
		for i < len(lo) && lo[i] == ' ' {
			i++
		}
		if strings.HasPrefix(lo[i:], "to ") {
			if !rememberStanding.MatchString(lo[i:]) {
				return "", false
			}
			i += len("to ")
		} else if !explicit {
			w := wordAt(lo, i)
			if w == "" || rememberNotNote[w] {
				return "", false
			}
		}
		n := rememberText(lo, cs, i, following)
		if !explicit && !strings.Contains(n, " ") {
			return "", false
		}
		return rememberValid(n)
	case m[4] >= 0: // a leading marker
		i := m[5]
		for i < len(lo) && strings.IndexByte(" :,-", lo[i]) >= 0 {
			i++
		}
		return rememberValid(rememberText(lo, cs, i, following))
	case m[6] >= 0: // always / never
		i := m[6]
		w := wordAt(lo, m[7]+1)
		if w == "" || lo[m[6]:m[7]] == "never" && w == "mind" || rememberNotVerb[w] ||
			strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is") {
			return "", false
		}
		// Only at a sentence start: "the test fails, always" describes.
		before := strings.TrimRight(lo[:m[6]], " ")
		for _, p := range []string{"please", "pls", "plz", "and", "also", "but"} {
			before = strings.TrimSuffix(before, p)
			before = strings.TrimRight(before, " ")
		}
		if before != "" && !strings.ContainsAny(before[len(before)-1:], ".!?;:") {
			return "", false
		}
		return rememberValid(rememberText(lo, cs, i, following))
	}
	return "", false
}

// rememberNotNote are words after a bare "remember" that make it a question or a
// phrase, not a note ("remember when we …?", "remember me").
var rememberNotNote = map[string]bool{"when": true, "how": true, "what": true, "where": true, "why": true, "who": true,
	"which": true, "if": true, "whether": true, "me": true, "me?": true, "it": true, "them": true, "us": true}

var rememberNotVerb = map[string]bool{"with": true, "on": true, "in": true, "at": true, "the": true, "a": true, "an": true,
	"for": true, "when": true, "if": true, "because": true, "after": true, "before": true, "been": true, "was": true,
	"is": true, "be": true, "has": true, "had": true, "have": true, "again": true, "true": true, "false": true}

// rememberText reads the note that starts at i: to the end of its sentence,
// or, when the marker ends the line ("remember:"), the next line or list.
func rememberText(lo, cs string, i int, following string) string {
	if strings.TrimSpace(cs[i:]) != "" {
		return cutWords(strings.TrimSpace(firstSentence(cs[i:], lo[i:])), rememberNoteMax)
	}
	var parts []string
	size := 0
	for raw := range strings.Lines(following) {
		t := strings.TrimSpace(raw)
		if t == "" {
			if len(parts) > 0 {
				break
			}
			continue
		}
		list := strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") || strings.HasPrefix(t, "+ ") || listNumber(t) > 0
		if len(parts) > 0 && !list {
			break
		}
		l, c := normLine(t)
		if c == "" {
			continue
		}
		if !list {
			return cutWords(firstSentence(c, l), rememberNoteMax)
		}
		parts = append(parts, strings.TrimRight(c, ".;"))
		size += len(c) + 2
		if size > rememberNoteMax {
			break
		}
	}
	return cutWords(strings.Join(parts, "; "), rememberNoteMax)
}

func rememberValid(n string) (string, bool) {
	n = strings.TrimSpace(strings.TrimRight(n, ",;: "))
	if strings.HasSuffix(n, "?") || !strings.ContainsFunc(n, unicode.IsLetter) || len(n) < 2 {
		return "", false
	}
	return n, true
}

// firstSentence returns s up to the end of its first sentence: a . ! or ?
// followed by a space, outside code, not after "e.g", "i.e", "etc", "vs".
// lo is s lower-cased with code masked (byte-aligned).
func firstSentence(s, lo string) string {
	for i := 0; i < len(lo); i++ {
		c := lo[i]
		if c != '.' && c != '!' && c != '?' {
			continue
		}
		if i+1 < len(lo) && lo[i+1] != ' ' {
			continue
		}
		if c == '.' {
			w := lo[:i]
			if k := strings.LastIndexByte(w, ' '); k >= 0 {
				w = w[k+1:]
			}
			if w == "e.g" || w == "i.e" || w == "etc" || w == "vs" || w == "cf" || w == "approx" || w == "" {
				continue
			}
		}
		return s[:i+1]
	}
	return s
}

// cutWords cuts s to at most n runes at a word boundary, marking the cut with "…".
func cutWords(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	end := 0
	for k := 0; k < n-1 && end < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[end:])
		end += size
	}
	t := s[:end]
	if k := strings.LastIndexByte(t, ' '); k > len(t)/2 {
		t = t[:k]
	}
	return strings.TrimRight(t, " ,;:.-") + "…"
}

// titleLead are openings dropped from a title: interjections and note markers.
var titleLead = []string{"remember that ", "remember: ", "remember:", "remember - ", "remember, ", "please remember ",
	"note for the future:", "note for future:", "note to self:", "note for later:", "for future reference:",
	"for future reference,", "for future reference ", "from now on,", "from now on ", "going forward,", "going forward ",
	"moving forward,", "in the future,", "in future,", "next time,", "henceforth,", "please, ", "please ",
	"actually, ", "actually ", "ugh, ", "ugh ", "hmm, ", "ok, ", "okay, ", "well, ", "wait, ", "hey, "}

// Title makes a one-line title (≤ 80 chars, no trailing period, first
// letter upper-case) from a note or a correction prompt. Openings that carry no
// meaning ("no,", "nope.", "wrong:", "remember:", "please") are dropped, then the
// first sentence of the first non-empty line outside fenced code is kept; a
// prompt that is all code has no title ("").
func Title(s string) string {
	var lo, cs string
	fence := ""
	for raw := range strings.Lines(s) {
		t := strings.TrimSpace(raw)
		if f := fenceMark(t); f != "" {
			if fence == "" {
				fence = f
			} else if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		if t == "" || fence != "" {
			continue
		}
		if len(t) > titleScanBytes { // a title needs the first 80 characters and the openings before them
			n := titleScanBytes
			for n > 0 && !utf8.RuneStart(t[n]) {
				n--
			}
			t = t[:n]
		}
		l, c := normLine(t)
		if l == "" {
			continue
		}
		lo, cs = l, c
		break
	}
	for changed := true; changed && lo != ""; {
		changed = false
		for _, p := range titleLead {
			if strings.HasPrefix(lo, p) && len(lo) > len(p) {
				lo, cs = lo[len(p):], cs[len(p):]
				changed = true
			}
		}
		// "no," "nope." "wrong:" — only with punctuation, so "No need to …" stays.
		w := wordAt(lo, 0)
		if w == "no" || w == "nope" || w == "nah" || w == "wrong" || w == "incorrect" || w == "ugh" || w == "argh" {
			j := len(w)
			k := j
			for k < len(lo) && strings.IndexByte(" ,.!;:-", lo[k]) >= 0 {
				k++
			}
			if k > j && k < len(lo) && strings.ContainsAny(lo[j:k], ",.!;:-") {
				lo, cs = lo[k:], cs[k:]
				changed = true
			}
		}
		lo = strings.TrimLeft(lo, " ")
		cs = cs[len(cs)-len(lo):]
	}
	t := strings.TrimSpace(firstSentence(cs, lo))
	t = cutWords(t, titleMax)
	t = strings.TrimRight(t, " .,;:!-")
	if r, size := utf8.DecodeRuneInString(t); size > 0 && unicode.IsLower(r) {
		t = string(unicode.ToUpper(r)) + t[size:]
	}
	return t
}

// lazyRe compiles its pattern the first time it is used. Compiling the classifier's patterns
// took 2.2 ms, which every reflect command paid at start-up although only UserPromptSubmit
// hooks classify prompts.
type lazyRe struct {
	pat  string
	once sync.Once
	re   *regexp.Regexp
}

func newLazyRe(pat string) *lazyRe { return &lazyRe{pat: pat} }

func (l *lazyRe) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.pat) })
	return l.re
}

func (l *lazyRe) MatchString(s string) bool      { return l.get().MatchString(s) }
func (l *lazyRe) FindStringIndex(s string) []int { return l.get().FindStringIndex(s) }
func (l *lazyRe) FindStringSubmatchIndex(s string) []int {
	return l.get().FindStringSubmatchIndex(s)
}
func (l *lazyRe) FindAllStringIndex(s string, n int) [][]int {
	return l.get().FindAllStringIndex(s, n)
}
