// Package mcp is `reflect mcp`: the memory as five tools any agent can call over the Model
// Context Protocol (stdio, on the official Go SDK). It is a front end, like cmd/reflect: every
// tool calls the package that owns the job (index for search, learnings for reads and writes,
// recall for what a hook would inject, drain's rule for a near-identical lesson, history for
// past sessions) and only bounds, shapes and explains the answer for a model.
//
// The server opens the repository once and opens it again only when HEAD moved (go-git sees a
// pack a sync fetched only on a fresh open). It holds no lock between calls: the index is
// opened per call, read-only when it is fresh, caught up when it is behind — a read-only bleve
// open holds bolt's shared lock, which would keep every hook and after-write from catching the
// index up for as long as the agent's session lasts, and the open costs 1.6 ms at 10,000
// learnings (index.BenchmarkOpenSearch). Every result is bounded in items and characters and
// says when it was cut; every failure is a tool error a model can act on, never a crash.
package mcp
