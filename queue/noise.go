package queue

// HostNoise reports whether a user-role text is the host talking, not the person: a
// slash-command wrapper, a caveat, an interrupted-request marker, injected context. The
// handoff reads prompts by the same rule as the digest.
func HostNoise(s string) bool { return isHostNoise(s) }
