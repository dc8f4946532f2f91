// Package e2e runs the built reflect binary as real processes against real git: many
// captures at once, captures killed at random moments, the git CLI working on the same
// repository. It has no code of its own outside its tests.
package e2e
