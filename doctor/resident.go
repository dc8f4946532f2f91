package doctor

import (
	"fmt"
	"os"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/hooks/resident"
)

// resident reports the reflect-engine that stays to answer the memory's recall hooks
// (package hooks/resident): whether one listens, how long one stays (recall.resident), and a
// socket directory other users could open, which would let them ask it, or answer in its place.
func (d *doctor) resident(r *gitstore.Repo) {
	dir := resident.Dir(r.StateDir())
	if fi, err := os.Stat(dir); err == nil && fi.Mode().Perm()&0o077 != 0 {
		d.add(Finding{Check: "resident", Severity: Warn, Fix: "chmod 700 " + q(dir),
			Message: fmt.Sprintf("%s can be opened by other users (mode %#o): they could reach the engine that answers your recall hooks", dir, fi.Mode().Perm())})
		return
	}
	d.add(Finding{Check: "resident", Severity: OK, Message: resident.Look(r.StateDir(), r.Config().Recall.Resident.Std()).String()})
}
