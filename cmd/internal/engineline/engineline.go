// Package engineline says which command lines of reflect are reflect-engine's: the commands
// the lean reflect does not run itself but hands to the engine (package cli), with the list
// of them (commands.go, generated from reflect-engine's tree by package enginecmd).
//
// It imports nothing. Package earlyexec asks it during the lean reflect's package
// initialisation, where every import would be one more package to initialise first.
package engineline

// Command is a command of reflect-engine's part of the tree, as the lean reflect lists it.
type Command struct {
	Path, Use, Short string // Path: its words from the root, "team add"
	Aliases          []string
	Hidden           bool
}

// HandsOff says whether args (a command line of reflect, global flags first) is a command
// reflect-engine runs: its words, flags aside, start with the path of one of Commands.
func HandsOff(args []string) bool {
	words := Words(args)
	for _, c := range Commands {
		if startsWith(words, c.Path) {
			return true
		}
	}
	return false
}

// Runs says whether reflect-engine runs the command line args (os.Args[1:]): one of its
// commands (HandsOff), or shell completion (cobra's __complete and the completion command),
// since the engine's tree has every command's flags.
func Runs(args []string) bool {
	if len(args) > 0 && (len(args[0]) >= 10 && args[0][:10] == "__complete" || args[0] == "completion") {
		return true
	}
	return HandsOff(args)
}

// Words is args without their flags: the path of the command they run, then its arguments.
// --home and --format take the next argument as their value.
func Words(args []string) []string {
	var words []string
	for i := 0; i < len(args); i++ {
		switch w := args[i]; {
		case w == "--home" || w == "--format":
			i++
		case len(w) > 0 && w[0] == '-':
		default:
			words = append(words, w)
		}
	}
	return words
}

// startsWith says whether words begin with the space-separated words of path.
func startsWith(words []string, path string) bool {
	for len(path) > 0 {
		end := 0
		for end < len(path) && path[end] != ' ' {
			end++
		}
		if len(words) == 0 || words[0] != path[:end] {
			return false
		}
		words, path = words[1:], path[min(end+1, len(path)):]
	}
	return true
}
