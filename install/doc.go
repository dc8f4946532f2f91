// Package install wires reflect into Claude Code, Codex, Gemini CLI, Copilot CLI, Cursor and
// opencode: it adds `reflect hook HOST` to the host's hook configuration (settings.json or
// hooks.json; for opencode, a plugin file of reflect's own), removes it again, and writes a
// Claude Code plugin folder.
//
// Every change keeps the rest of the file as it was: the file is read into an order-preserving
// JSON tree that keeps the original text of numbers and strings and the whitespace around
// every element, only reflect's own handlers are added, replaced or removed, and the result is
// written atomically. What reflect adds follows the file's own layout (its indentation, tabs or
// spaces, line ends, a file on one line stays on one line) and the file keeps its final newline
// or its lack of one. Before the first change the file is copied to <file>.reflect-backup; that
// copy of the file as it was before reflect is never replaced by a version reflect changed. A
// second install changes nothing, and an uninstall after an install gives back the original
// file byte for byte. A file that is not valid JSON is refused with its line and column and
// left untouched, and so is one without a write permission bit. A file that is a symbolic
// link is written where the link points (the atomic rename happens in the target's
// directory), so a dotfiles repository's file changes and the link stays.
package install
