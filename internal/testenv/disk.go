package testenv

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// MountTmpfs mounts a tmpfs of size (as mount takes it: "16m") on a new temporary directory
// and unmounts it when the test ends; where mounting is not permitted (not Linux, not root,
// no CAP_SYS_ADMIN) it skips the test and says why.
func MountTmpfs(t testing.TB, size string) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("a full disk is simulated with a Linux tmpfs")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs to fill (needs root or CAP_SYS_ADMIN): %v: %s", err, bytes.TrimSpace(out))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
			exec.Command("umount", "-l", dir).Run()
		}
	})
	return dir
}

// Disk is a file system filled by one file, whose size sets the space left.
type Disk struct {
	filler string
	full   int64 // the filler's size when nothing is left
}

// FillDisk writes a filler file in dir until the file system holding it has no byte left.
func FillDisk(t testing.TB, dir string) *Disk {
	t.Helper()
	d := &Disk{filler: filepath.Join(dir, "filler")}
	f, err := os.Create(d.filler)
	if err != nil {
		t.Fatal(err)
	}
	for _, chunk := range []int{1 << 20, 64 << 10, 4 << 10, 1} {
		buf := make([]byte, chunk)
		for {
			if _, err := f.Write(buf); err != nil {
				break
			}
		}
	}
	f.Close()
	fi, err := os.Stat(d.filler)
	if err != nil {
		t.Fatal(err)
	}
	d.full = fi.Size()
	return d
}

// Leave frees n bytes (0: the disk is full again, as far as the filler can make it).
func (d *Disk) Leave(t testing.TB, n int64) {
	t.Helper()
	if err := os.Truncate(d.filler, max(0, d.full-n)); err != nil {
		t.Fatal(err)
	}
}

// Free removes the filler.
func (d *Disk) Free() { os.Remove(d.filler) }
