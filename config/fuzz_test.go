package config

import (
	"testing"
)

// Whatever a remote's writer puts in reflect.toml, what reflect accepts from it keeps every
// local key at its default and every time-out under its cap.
func FuzzParseShared(f *testing.F) {
	for _, seed := range []string{DefaultFile, DefaultLocalFile, "[hooks]\nrecall_timeout = \"10m\"\n",
		"drain.extractor = \"command:sh\"\n", "[recall]\nmax_chars = 1e9\n", "[[x]]\n", "a = {b = 1}\n", "[history]\nwatch = \"1h\"\n"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, _, err := ParseShared(FileName, data)
		if err != nil {
			return
		}
		d := Default()
		if c.Drain != d.Drain || c.Sync != d.Sync || c.Author != d.Author || c.Recall.FromOthers != d.Recall.FromOthers || c.History != d.History {
			t.Fatalf("a shared file set a local key: %+v", c)
		}
		if c.Hooks.RecallTimeout.Std() > maxHookTimeout || c.Hooks.CaptureTimeout.Std() > maxHookTimeout ||
			c.Git.LockTimeout.Std() > maxLockTimeout || c.Hooks.CorrectionWindow.Std() > maxCorrection ||
			c.Queue.DigestMaxBytes > maxDigestBytes || c.Recall.MaxChars > maxRecallChars {
			t.Fatalf("a value over its cap was accepted: %+v", c)
		}
	})
}
