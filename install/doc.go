// Package install wires reflect into Claude Code and Codex: it adds `reflect hook claude|codex`
// to the host's hook configuration (settings.json or hooks.json), removes it again, and writes a
// Claude Code plugin folder.
//
// Every change keeps the rest of the file as it was: the file is read into an order-preserving
// JSON tree (numbers and strings keep their original text), only reflect's own handlers are
// added, replaced or removed, and the result is written atomically with two-space indentation
// after a backup (<file>.reflect-backup). A second install changes nothing, and an uninstall
// after an install gives back the original file. A file that is not valid JSON is refused with
// its line and column and left untouched.
package install
