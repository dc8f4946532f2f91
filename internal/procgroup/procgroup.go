// Package procgroup starts a child as the leader of its own process group and kills the
// whole group, so that a time-out leaves nothing the child started behind: an extractor's
// tools (drain), git-upload-pack's git-pack-objects (sync).
package procgroup
