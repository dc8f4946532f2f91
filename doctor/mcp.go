package doctor

import (
	"fmt"

	"github.com/reflect-memory/reflect/install"
)

// mcp checks reflect's MCP server registrations (install --mcp): that the file still
// parses and that the program it starts exists. A host with no registration is not a
// finding: the server is optional, the hooks are what capture and recall.
func (d *doctor) mcp(harness string) {
	fix := d.reflect("install " + harness + " --mcp")
	paths := []string{}
	if p, err := install.MCPConfigPath(harness, false, ""); err == nil {
		paths = append(paths, p)
	}
	if d.o.Cwd != "" {
		if p, err := install.MCPConfigPath(harness, true, d.o.Cwd); err == nil && (len(paths) == 0 || p != paths[0]) {
			paths = append(paths, p)
			fix += " [--project]"
		}
	}
	for _, p := range paths {
		s, err := install.ReadMCP(harness, p)
		if err != nil {
			d.add(Finding{Check: "mcp", Severity: Warn, Message: fmt.Sprintf("cannot read %s's MCP servers: %v", hostName(harness), err),
				Fix: "correct " + p + " where the error says"})
			continue
		}
		if s == nil {
			continue
		}
		if path, problem := resolve(s.Command); problem != "" {
			d.add(Finding{Check: "mcp", Severity: Error, Fix: fix + "   (run it with the reflect the server should be)",
				Message: fmt.Sprintf("%s starts reflect's MCP server as %s, which %s: its memory tools fail to start", hostName(harness), s.Command, problem)})
		} else {
			if path == "" {
				path = s.Command
			}
			d.add(Finding{Check: "mcp", Severity: OK, Message: fmt.Sprintf("%s starts reflect's MCP server from %s (%s)", hostName(harness), s.Path, path)})
		}
	}
}
