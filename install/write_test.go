package install

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestInstallThroughSymlink: a configuration file that is a symbolic link into a dotfiles
// repository is changed where the link points, for every host; the link stays, and uninstall
// gives the dotfiles' file back as it was, the link still in place.
func TestInstallThroughSymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	for _, host := range Hosts {
		for _, relative := range []bool{false, true} {
			name := host + "/absolute"
			if relative {
				name = host + "/relative"
			}
			t.Run(name, func(t *testing.T) {
				root := t.TempDir()
				dotfiles := filepath.Join(root, "dotfiles")
				os.MkdirAll(dotfiles, 0o755)
				target := filepath.Join(dotfiles, "config")
				orig := "{\n  \"version\": 1,\n  \"model\": \"opus\"\n}\n"
				if host == Opencode {
					orig = string(OpencodePlugin("/old/reflect"))
				}
				if err := os.WriteFile(target, []byte(orig), 0o600); err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(root, "home", ".host", "config")
				os.MkdirAll(filepath.Dir(path), 0o755)
				link := target
				if relative {
					link = filepath.Join("..", "..", "dotfiles", "config")
				}
				if err := os.Symlink(link, path); err != nil {
					t.Fatal(err)
				}
				isLink := func(when string) {
					t.Helper()
					fi, err := os.Lstat(path)
					if err != nil || fi.Mode()&os.ModeSymlink == 0 {
						t.Fatalf("%s: %s is no longer a symbolic link (%v, %v)", when, path, fi.Mode(), err)
					}
				}
				opts := Options{Harness: host, Path: path, Binary: testBinary}
				if _, err := Install(context.Background(), opts); err != nil {
					t.Fatal(err)
				}
				isLink("install")
				data, _ := os.ReadFile(target)
				if !strings.Contains(string(data), testBinary) {
					t.Fatalf("the link's target was not changed:\n%s", data)
				}
				if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o600 && host != Opencode {
					t.Errorf("the target's mode became %v", fi.Mode().Perm())
				}
				if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".config.tmp-*")); len(left) > 0 {
					t.Errorf("temporary files beside the link: %v", left)
				}
				if host == Opencode {
					return // uninstall removes the plugin file reflect owns
				}
				if _, err := Uninstall(opts); err != nil {
					t.Fatal(err)
				}
				isLink("uninstall")
				if data, _ := os.ReadFile(target); string(data) != orig {
					t.Fatalf("uninstall did not give the target back:\n%s", data)
				}
			})
		}
	}
}

// TestInstallThroughDanglingSymlink: a link whose target does not exist yet gets its target
// created, and uninstall removes that file again, not the link.
func TestInstallThroughDanglingSymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	root := t.TempDir()
	target := filepath.Join(root, "dotfiles", "settings.json")
	path := filepath.Join(root, "settings.json")
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	opts := Options{Harness: Claude, Path: path, Binary: testBinary}
	if _, err := Install(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(target); err != nil || !strings.Contains(string(data), testBinary) {
		t.Fatalf("target: %q, %v", data, err)
	}
	if _, err := Uninstall(opts); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(target); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the target install created is still there: %v", err)
	}
	if _, err := os.Readlink(path); err != nil {
		t.Fatalf("the link is gone: %v", err)
	}
}

// TestReadOnlyRefused: a configuration file without a write bit is refused, named, and left
// as it was (root included: the mode says what the user wants, not what the kernel allows).
func TestReadOnlyRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no mode bits on Windows")
	}
	for _, host := range Hosts {
		t.Run(host, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "settings.json")
			orig := "{}\n"
			if host == Opencode {
				orig = string(OpencodePlugin("/old/reflect"))
			}
			if err := os.WriteFile(path, []byte(orig), 0o444); err != nil {
				t.Fatal(err)
			}
			_, err := Install(context.Background(), Options{Harness: host, Path: path, Binary: testBinary})
			var ro *ReadOnlyError
			if !errors.As(err, &ro) || !strings.Contains(err.Error(), path+" is read-only; nothing was changed") {
				t.Fatalf("install of a read-only file: %v", err)
			}
			if data, _ := os.ReadFile(path); string(data) != orig {
				t.Fatalf("the read-only file changed:\n%s", data)
			}
			if _, err := os.Stat(path + BackupSuffix); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("a backup was written: %v", err)
			}
		})
	}
}

// TestReadOnlyDirectoryNamesTheFile: when the directory refuses the write, the error names the
// configuration file (or its backup), never the temporary file.
func TestReadOnlyDirectoryNamesTheFile(t *testing.T) {
	if runtime.GOOS == "windows" || os.Getuid() == 0 {
		t.Skip("root writes into a read-only directory")
	}
	dir := filepath.Join(t.TempDir(), "conf")
	os.MkdirAll(dir, 0o755)
	path := filepath.Join(dir, "settings.json")
	os.WriteFile(path, []byte("{}\n"), 0o644)
	os.Chmod(dir, 0o555)
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	_, err := Install(context.Background(), Options{Harness: Claude, Path: path, Binary: testBinary})
	if err == nil || !strings.Contains(err.Error(), path) || strings.Contains(err.Error(), ".tmp-") {
		t.Fatalf("error %v does not name %s", err, path)
	}
}

// TestUninstallDropsEmptyBackup: the empty backup that recorded "no file before reflect" goes
// with reflect, whether uninstall removes the file or the user's keys keep it; a backup of the
// user's own file stays.
func TestUninstallDropsEmptyBackup(t *testing.T) {
	cases := []struct {
		name, host string
		orig       string // "" for no file
		userAdds   string // a key the user adds after install
		wantBackup bool
	}{
		{name: "claude, created", host: Claude},
		{name: "codex, created", host: Codex},
		{name: "cursor, created", host: Cursor},
		{name: "claude, created, then the user's key", host: Claude, userAdds: "model"},
		{name: "claude, the user's file", host: Claude, orig: "{\"model\": \"opus\"}\n", wantBackup: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "settings.json")
			if tc.orig != "" {
				os.WriteFile(path, []byte(tc.orig), 0o644)
			}
			opts := Options{Harness: tc.host, Path: path, Binary: testBinary}
			if _, err := Install(context.Background(), opts); err != nil {
				t.Fatal(err)
			}
			if tc.userAdds != "" {
				data, _ := os.ReadFile(path)
				data = []byte(strings.Replace(string(data), "{", "{\n  \""+tc.userAdds+"\": \"x\",", 1))
				os.WriteFile(path, data, 0o644)
			}
			if _, err := Uninstall(opts); err != nil {
				t.Fatal(err)
			}
			_, err := os.Stat(path + BackupSuffix)
			if got := err == nil; got != tc.wantBackup {
				t.Fatalf("backup kept %v, want %v (%v)", got, tc.wantBackup, err)
			}
		})
	}
}
