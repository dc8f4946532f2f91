package recall

import "github.com/reflect-memory/reflect/workspace"

// Workspace is what recall knows of the directory an agent works in (package workspace
// reads it).
type Workspace = workspace.Workspace

// StartSubjects is how many of the latest commit subjects a session start's query draws on.
const StartSubjects = 5
