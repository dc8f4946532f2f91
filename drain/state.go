package drain

import (
	"encoding/json"

	"github.com/reflect-memory/reflect/gitstore"
)

// lastDrainFile is what the last drain on this machine did, under .git/reflect.
const lastDrainFile = "drain/last.json"

// LastDrain reads what the last drain on this machine did (nil when none ran).
func LastDrain(r *gitstore.Repo) *Report {
	data, err := r.ReadState(lastDrainFile)
	if err != nil || len(data) == 0 {
		return nil
	}
	var rep Report
	if json.Unmarshal(data, &rep) != nil {
		return nil
	}
	return &rep
}
