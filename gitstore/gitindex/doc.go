// Package gitindex owns git's index file, .git/index (git's Documentation/gitformat-index.txt):
// reading versions 2 to 4, writing version 2 or 3, and the split form — the "link"
// extension, its EWAH bitmaps and the immutable sharedindex.<sha> it layers on.
//
// go-git's index codec materialises every entry as a Go value and knows nothing of split
// indexes; at 50,000 learnings the index is ~6 MB and rewriting and re-hashing it costs
// ~8.6 ms, more than the rest of a capture. Here a change reads and rewrites only the small
// front index, and looks in the shared index only for a path that may be there.
//
// Everything read is untrusted: a count or a bitmap is checked against the bytes that hold
// it before anything is sized by it (FuzzReadGitIndex). This package never decides what to
// stage; gitstore tells it which entries change.
package gitindex
