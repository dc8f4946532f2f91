// Package view is reflect view: a web page, served on loopback only, to browse, search,
// review and curate the memory — learnings with their git history, the queue and the drain,
// the session history, activity charts drawn as SVG on the server.
//
// Every change it makes is the CLI's operation through the package that owns it
// (learnings.SaveEdit, learnings.Change, queue.Retry, queue.Drop): one redacted commit, the
// same validation and messages, and a write whose page is older than the file is refused.
// It never renders a learning's text unescaped (learnings arrive from remotes), never
// answers a host name other than a loopback one, and never takes a write without this run's
// token from its own origin. It holds no state but a cache of parsed learnings keyed by blob.
package view
