package correction

import "github.com/reflect-memory/reflect/internal/lazyregexp"

// lazyRe compiles its pattern the first time it is used. Compiling the classifier's patterns
// took 2.2 ms, which every reflect command paid at start-up although only UserPromptSubmit
// hooks classify prompts. (internal/lazyregexp is the one implementation; drain uses it too.)
type lazyRe = lazyregexp.Regexp

func newLazyRe(pat string) *lazyRe { return lazyregexp.New(pat) }
