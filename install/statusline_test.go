package install

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStatusLine(t *testing.T) {
	ctx := context.Background()
	bin := "/opt/reflect/bin/reflect"
	t.Run("wired when the user has none, removed by uninstall", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "settings.json")
		orig := "{\n  \"model\": \"opus\"\n}\n"
		os.WriteFile(path, []byte(orig), 0o644)
		res, err := Install(ctx, Options{Harness: Claude, Path: path, Binary: bin, StatusLine: true})
		if err != nil || res.StatusLine != "added" {
			t.Fatalf("install: %+v, %v", res, err)
		}
		data, _ := os.ReadFile(path)
		if !strings.Contains(string(data), `"command": "/opt/reflect/bin/reflect statusline"`) {
			t.Fatalf("status line not wired:\n%s", data)
		}
		again, _ := Install(ctx, Options{Harness: Claude, Path: path, Binary: bin, StatusLine: true})
		if again.Changed || again.StatusLine != "unchanged" {
			t.Fatalf("second install changed something: %+v", again)
		}
		un, err := Uninstall(Options{Harness: Claude, Path: path})
		if err != nil || un.StatusLine != "removed" {
			t.Fatalf("uninstall: %+v, %v", un, err)
		}
		if data, _ := os.ReadFile(path); string(data) != orig {
			t.Fatalf("not back to the original:\n%s", data)
		}
	})
	t.Run("a status line of the user's own is kept, with a note", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "settings.json")
		orig := "{\n  \"statusLine\": {\n    \"type\": \"command\",\n    \"command\": \"~/.claude/statusline.sh\"\n  }\n}\n"
		os.WriteFile(path, []byte(orig), 0o644)
		res, err := Install(ctx, Options{Harness: Claude, Path: path, Binary: bin, StatusLine: true})
		if err != nil || res.StatusLine != "foreign" || len(res.Notes) == 0 || !strings.Contains(res.Notes[0], "statusline") {
			t.Fatalf("install: %+v, %v", res, err)
		}
		data, _ := os.ReadFile(path)
		if !strings.Contains(string(data), "~/.claude/statusline.sh") || strings.Contains(string(data), " statusline\"") {
			t.Fatalf("the user's status line was touched:\n%s", data)
		}
		if _, err := Uninstall(Options{Harness: Claude, Path: path}); err != nil {
			t.Fatal(err)
		}
		if data, _ := os.ReadFile(path); string(data) != orig {
			t.Fatalf("not back to the original:\n%s", data)
		}
	})
}
