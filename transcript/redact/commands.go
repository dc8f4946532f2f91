package redact

import (
	"maps"
	"slices"
	"strings"
)

// commands are the command-line programs whose arguments carry a password
// in a shape that is ambiguous anywhere else: curl -u user:pass, mysql
// -pPASS (attached: "-p value" makes mysql prompt and names a database),
// sshpass -p pass, sqlplus user/pass@db, vault login TOKEN (a legacy Vault
// token, s.…, has no shape of its own). Elsewhere "-p" is a port, a path or
// a patch, and "-u" a user or an upstream, so those flags are not read as
// passwords in general. A registry or cloud login (docker login -u me -p
// PASS, helm registry login, az login -p) reads -p and --password only after
// the operand "login": "docker run -p 8080:80" publishes a port.
var commands = map[string]string{
	"curl": "curl", "mysql": "mysql", "mysqldump": "mysql", "mysqladmin": "mysql",
	"mysqlsh": "mysql", "mysqlimport": "mysql", "mariadb": "mysql",
	"mariadb-dump": "mysql", "sshpass": "sshpass", "sqlplus": "sqlplus",
	"vault":  "vault",
	"docker": "login", "podman": "login", "nerdctl": "login", "helm": "login", "az": "login",
}

func commandDetectors() []detector {
	starts := map[string]bool{}
	var ds []detector
	for _, name := range slices.Sorted(maps.Keys(commands)) {
		// One detector per first two letters: findCommand reads the whole
		// word, and two letters let dispatch pass over most words unread.
		if !starts[name[:2]] {
			starts[name[:2]] = true
			ds = append(ds, detector{prefix: name[:2], context: true, find: findCommand})
		}
	}
	return ds
}

// findCommand reads the command line that starts with a known program name
// at s[i] and redacts the passwords in its arguments.
func findCommand(sc *scanner, i, prio int) (int, bool) {
	s := sc.s
	if i < sc.cmdEnd {
		return i, false // an argument of the command before (watch curl …)
	}
	w := i
	for w < len(s) && w-i < 16 && (isAlnum(s[w]) || s[w] == '-') {
		w++
	}
	prog, ok := commands[s[i:w]]
	if !ok || (w < len(s) && !isBlank(s[w])) {
		return i, false
	}
	end := commandEnd(s, w)
	sc.cmdEnd = end
	args := fields(s, w, end)
	found := false
	kind := "password"
	if prog == "vault" {
		kind = "vault-token"
	}
	add := func(start, end int) {
		// the quotes around or within the value's ends stay: taken by a marker, an unpaired
		// one would pair with a later quote when the text is read again, and an argument
		// between them would be read differently (FuzzString: sshpass -p''0 ' -p0 redacted
		// to -p'[REDACTED:password] ' -p0, whose -p0 a second pass then took)
		for start < end && (s[start] == '\'' || s[start] == '"') {
			start++
		}
		for end > start && (s[end-1] == '\'' || s[end-1] == '"') {
			end--
		}
		v := s[start:end]
		if start < end && !isPlaceholder(v) {
			sc.add(kind, start, end, prio)
			found = true
		}
	}
	login := false // vault, docker…: the operand "login" was read
args:
	for k, a := range args {
		arg := s[a[0]:a[1]]
		var val [2]int // the argument's value, when this argument has one
		switch prog {
		case "curl":
			switch {
			case (arg == "-u" || arg == "--user") && k+1 < len(args):
				val = args[k+1]
			case strings.HasPrefix(arg, "--user="):
				val = [2]int{a[0] + len("--user="), a[1]}
			case strings.HasPrefix(arg, "-u") && len(arg) > 2 && arg[2] != '-':
				val = [2]int{a[0] + 2, a[1]}
			default:
				continue
			}
			val = unquote(s, val)
			if c := strings.IndexByte(s[val[0]:val[1]], ':'); c >= 0 {
				add(val[0]+c+1, val[1])
			}
		case "mysql":
			if strings.HasPrefix(arg, "-p") && len(arg) > 2 {
				val = unquote(s, [2]int{a[0] + 2, a[1]})
				add(val[0], val[1])
			}
		case "sshpass":
			switch {
			case arg == "-p" && k+1 < len(args):
				val = unquote(s, args[k+1])
				add(val[0], val[1])
			case strings.HasPrefix(arg, "-p") && len(arg) > 2:
				val = unquote(s, [2]int{a[0] + 2, a[1]})
				add(val[0], val[1])
			}
		case "sqlplus":
			if strings.HasPrefix(arg, "-") {
				continue
			}
			val = unquote(s, a)
			v := s[val[0]:val[1]]
			if sl := strings.IndexByte(v, '/'); sl > 0 {
				e := len(v)
				if at := strings.IndexByte(v, '@'); at > sl {
					e = at
				}
				add(val[0]+sl+1, val[0]+e)
			}
			break args // only the first operand is the logon
		case "login":
			switch {
			case !login:
				login = arg == "login"
				continue
			case (arg == "-p" || arg == "--password") && k+1 < len(args):
				val = args[k+1]
			case strings.HasPrefix(arg, "--password="):
				val = [2]int{a[0] + len("--password="), a[1]}
			case strings.HasPrefix(arg, "-p="):
				val = [2]int{a[0] + len("-p="), a[1]}
			case strings.HasPrefix(arg, "-p") && len(arg) > 2 && arg[2] != '-':
				val = [2]int{a[0] + 2, a[1]} // -pPASS, as cobra and pflag read it
			default:
				continue
			}
			val = unquote(s, val)
			add(val[0], val[1])
		case "vault":
			switch {
			case strings.HasPrefix(arg, "-"):
			case !login && arg == "login":
				login = true
			case !login:
				break args // another subcommand
			case !strings.Contains(arg, "="):
				// vault login TOKEN; a method's parameters are key=value
				// (password=… is an assignment and redacted as one).
				val = unquote(s, a)
				if val[1]-val[0] >= 8 {
					add(val[0], val[1])
				}
				break args
			}
		}
	}
	return i, found
}

// commandEnd returns where the command whose arguments start at p ends: at
// the end of the line or at a shell operator (&&, ||, ;, |).
func commandEnd(s string, p int) int {
	end := lineEnd(s, p, 4096)
	if k := strings.IndexAny(s[p:end], ";|&"); k >= 0 {
		return p + k
	}
	return end
}

// fields splits s[start:end] at blanks into [start, end) pairs; a quoted
// stretch does not split.
func fields(s string, start, end int) [][2]int {
	var out [][2]int
	for p := start; p < end; {
		for p < end && isBlank(s[p]) {
			p++
		}
		if p >= end {
			break
		}
		q := p
		var quote byte
		for q < end && (quote != 0 || !isBlank(s[q])) {
			switch {
			case quote != 0 && s[q] == quote:
				quote = 0
			case quote == 0 && (s[q] == '"' || s[q] == '\''):
				quote = s[q]
			}
			q++
		}
		out = append(out, [2]int{p, q})
		p = q
	}
	return out
}

// unquote narrows a field to the inside of its quotes.
func unquote(s string, f [2]int) [2]int {
	if f[1]-f[0] >= 2 && (s[f[0]] == '"' || s[f[0]] == '\'') && s[f[1]-1] == s[f[0]] {
		return [2]int{f[0] + 1, f[1] - 1}
	}
	if f[1] > f[0] && (s[f[0]] == '"' || s[f[0]] == '\'') {
		return [2]int{f[0] + 1, f[1]}
	}
	return f
}
