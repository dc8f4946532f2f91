// Package correction reads a user's prompt the way the hooks and the drain need it read
// after a failed tool call: whether it corrects what the agent just did (Classify), what it
// names to use instead and what to avoid, an explicit note to remember (Remember), and the
// one-line title a learning made from either gets (Title).
//
// It is plain text analysis over cue tables built once and only read: it never does I/O,
// reads no clock or environment and keeps no state, so a UserPromptSubmit hook inside its
// 500 ms capture budget and the drain reading a whole digest give the same prompt the same
// answer.
package correction
