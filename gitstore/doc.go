// Package gitstore owns the knowledge repository on disk: finding and initialising it,
// reading files from HEAD, and writing several files as one commit.
//
// Writes are built at the object level — a blob per changed file, new trees only along the
// changed paths, a commit, a compare-and-swap of the branch ref — so a capture costs the same
// at 50,000 learnings as at 100. go-git's Worktree.Add computes a full status (about 250 ms at
// 10,000 files), which is why this package never uses go-git's worktree. The git index is kept
// in git's split-index form once it grows: a capture rewrites only the small .git/index and
// leaves the large, immutable sharedindex.<sha> alone (a full rewrite plus SHA-1 of a 6 MB
// index costs ~9 ms, more than the rest of a capture).
//
// Every write holds the repository lock (flock on .git/reflect/locks/repo) and also takes
// git's own index.lock and ref lock files, so reflect and the git CLI exclude each other.
// A journal records which paths a write touches; a write killed at any moment is completed or
// rolled back by the next one, so HEAD, the git index and the work tree always agree.
//
// This package never interprets what it stores: learnings, queue entries and settings are
// opaque bytes here. Commit messages are the one text it changes: each is redacted
// (transcript/redact) as the commit is written, a net under what its callers redact.
package gitstore
