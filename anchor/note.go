package anchor

import (
	"fmt"
	"strings"
)

// Note is what a recall says of a learning that is not fresh, in one line; "" for a fresh or
// unchecked one. Paths are as the learning holds them: the caller neutralises markup.
func (f Freshness) Note() string {
	var changed, gone []string
	for _, c := range f.Anchors {
		switch c.State {
		case Drifted:
			changed = append(changed, "`"+c.Path+"`")
		case Orphaned:
			g := "`" + c.Path + "`"
			if c.RenamedTo != "" {
				g += " (renamed to `" + c.RenamedTo + "`)"
			}
			gone = append(gone, g)
		}
	}
	switch f.State {
	case Drifted:
		return fmt.Sprintf("%s changed since this was learned — check before relying on it", list(changed))
	case Orphaned:
		s := fmt.Sprintf("%s is gone since this was learned — it may no longer apply", list(gone))
		if len(gone) > 1 {
			s = strings.Replace(s, " is gone", " are gone", 1)
		}
		if len(changed) > 0 {
			s += fmt.Sprintf("; %s changed", list(changed))
		}
		return s
	}
	return ""
}

func list(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
