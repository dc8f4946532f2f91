// Package learnings owns the Learning: one lesson an agent learned, stored as
// a markdown file with YAML frontmatter at learnings/<project>/<id>.md. It
// defines the file format (Parse, Render), ids (lrn- + ULID), validation,
// the lifecycle (Archive, Supersede) and project keys (NormalizeRemote,
// LocalKey, ValidProjectKey; package workspace reads a directory's remote).
//
// Render rewrites a parsed file in place: only the values that changed are
// replaced, so a person's comments, key order, alignment and unknown keys
// survive, and git diffs show exactly what reflect changed.
//
// store.go finds, reads and commits learnings through gitstore, always as
// redacted, validated, rendered files and always one commit per change; nothing here
// writes the work tree or the git directory directly, and nothing else does I/O.
package learnings
