package gitstore

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/reflect-memory/reflect/internal/atomicfile"
)

// Creating a file costs ~550 µs on the ext4 of this project's machines, while renaming one
// costs ~15 µs and writing into an existing one ~10 µs: a capture that created its ten files
// (loose objects, the work file, the index and ref lock files) spent 5–6 ms on inode
// allocation alone. So writes take empty files from a pool under .git/reflect/pool and rename
// them into place, and the pool is refilled by a separate process (FillPool) off the write
// path. An empty pool only makes a write slower: it falls back to creating files.

const (
	poolTarget = 160 // files FillPool leaves in the pool: about sixteen captures
	poolLow    = 64  // below this, PoolLow asks for a refill
)

func (r *Repo) poolDir() string { return filepath.Join(r.stateDir, "pool") }

// takePooled moves a pool file to dst and reports whether it could.
func (r *Repo) takePooled(dst string) bool {
	r.poolMu.Lock()
	defer r.poolMu.Unlock()
	if r.pool == nil {
		entries, _ := os.ReadDir(r.poolDir())
		r.pool = make([]string, 0, len(entries))
		for _, e := range entries {
			r.pool = append(r.pool, e.Name())
		}
	}
	for len(r.pool) > 0 {
		name := r.pool[len(r.pool)-1]
		r.pool = r.pool[:len(r.pool)-1]
		if os.Rename(filepath.Join(r.poolDir(), name), dst) == nil {
			return true
		}
	}
	return false
}

// writeAtomic writes data to final through a temporary file and a rename, so a reader sees
// the old file or the new one, never a part. The temporary file is a pool file when there is
// one, and always lives under .git so a kill never leaves it in the work tree.
//
// It writes the loose objects, the work-tree files and the shared index, and it fsyncs
// neither the file nor its directory, on purpose; nor does gitLock.commit, which puts the
// git index and the ref in place. A capture renames about ten files into place (seven
// objects in as many objects/xx directories, the work file, the index, the ref): a directory
// fsync after each took the in-process commit from 2.6 to 3.5 ms (BenchmarkCommit at 100
// learnings, this machine). What makes a crash recoverable is the order instead: the journal
// is on disk (atomicfile, fsynced) before the first of these files is visible, the ref moves
// last, and the next writer reconciles every journalled path with the ref it finds. Like
// git's own default (core.fsync=committed,-loose-object), a power loss right after a commit
// may still lose that commit's loose objects, which git fsck and reflect doctor report. Files
// that must survive a crash go through atomicfile, as WriteState does.
func (r *Repo) writeAtomic(final string, data []byte, perm os.FileMode) error {
	tmp := filepath.Join(r.stateDir, "tmp", "w-"+randomName())
	var f *os.File
	var err error
	if r.takePooled(tmp) {
		f, err = os.OpenFile(tmp, os.O_WRONLY|os.O_TRUNC, 0)
	} else {
		f, err = os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	}
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, perm)
	}
	if err == nil {
		err = os.Rename(tmp, final)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

func randomName() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// PoolLow reports whether this process used the file pool and left it running low, so the
// caller should start a FillPool in the background.
func (r *Repo) PoolLow() bool {
	r.poolMu.Lock()
	defer r.poolMu.Unlock()
	return r.pool != nil && len(r.pool) < poolLow
}

// FillPool creates empty files in the pool until it holds poolTarget. Only one process fills
// at a time; another that finds the pool lock taken returns at once.
func (r *Repo) FillPool() error {
	if err := os.MkdirAll(r.poolDir(), 0o755); err != nil {
		return err
	}
	// the 256 loose-object directories, which git creates lazily at the same cost as a file
	for i := 0; i < 256; i++ {
		os.Mkdir(filepath.Join(r.gitDir, "objects", fmt.Sprintf("%02x", i)), 0o755)
	}
	fl := flock.New(filepath.Join(r.stateDir, "locks", "pool"))
	ok, err := fl.TryLock()
	if err != nil || !ok {
		return err
	}
	defer fl.Unlock()
	entries, err := os.ReadDir(r.poolDir())
	if err != nil {
		return err
	}
	for n := len(entries); n < poolTarget; n++ {
		f, err := os.OpenFile(filepath.Join(r.poolDir(), randomName()), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return fmt.Errorf("fill file pool: %w", err)
		}
		f.Close()
	}
	return nil
}

// WriteState writes a file of local state under .git/reflect (rel is relative to it) so that
// it survives a crash (atomicfile). State is never committed.
func (r *Repo) WriteState(rel string, data []byte) error {
	dst, err := r.statePath(rel)
	if err != nil {
		return err
	}
	return atomicfile.Write(dst, data, 0o644)
}

// WriteVolatileState writes a file of local state that only reports, such as the hooks'
// last-event.json, which every hook event rewrites: a crash may leave its previous content
// (never a part of either). It writes without WriteState's two fsyncs: those cost 0.35 ms a
// write here when the file system is otherwise idle (strace), and more when they must commit
// other metadata first. With every state file durable, bench -hooks measured a PostToolUse
// that arms the correction watcher (two writes) at 1.2–1.3× the process start-up instead of
// 1.0×.
//
// A file of at most swapMax bytes is written by swapWrite where the system has it (Linux):
// into a spare file kept beside it, which then trades names with it. The rename of a pool
// file over the old one (writeAtomic) cost 0.45 ms of every hook in a new process (0.33–0.7,
// instrumented Stop hook): the pool's directory listing, and ext4 freeing the replaced file's
// blocks and writing out the new one's at the rename (auto_da_alloc); an exchange frees and
// allocates nothing (0.024 against 0.089 ms warm, median of 400).
func (r *Repo) WriteVolatileState(rel string, data []byte) error {
	dst, err := r.statePath(rel)
	if err != nil {
		return err
	}
	if len(data) <= swapMax && swapWrite(dst, spareOf(dst), data) == nil {
		return nil
	}
	return r.writeAtomic(dst, data, 0o644)
}

// swapMax bounds what swapWrite writes: one page, which a reader gets in one read.
const swapMax = 4096

// RemoveVolatileState removes a file WriteVolatileState wrote, and its spare.
func (r *Repo) RemoveVolatileState(rel string) error {
	dst := r.stateFile(rel)
	os.Remove(spareOf(dst))
	if err := os.Remove(dst); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// SweepState removes the files directly under the state directory dir (relative to
// .git/reflect, as WriteState's rel) last written before cutoff, spares too, and returns how
// many records (not spares) it removed; a file it cannot remove is skipped, and named in the
// error. What a session keeps there (what recall gave it, the failure its correction watcher
// waits on) means nothing once the session is long over, and nothing else removes it: one
// file a session, and its spare, for good. A spare removed under a writer makes it write by
// rename instead (WriteVolatileState); a record a writer swaps in between the sweep's look at
// its age and the removal is lost, as a crash may lose it.
func (r *Repo) SweepState(dir string, cutoff time.Time) (int, error) {
	full := r.stateFile(dir)
	entries, err := os.ReadDir(full)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	} else if err != nil {
		return 0, err
	}
	n := 0
	var errs []error
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		if fi, err := e.Info(); err != nil || !fi.ModTime().Before(cutoff) {
			continue
		}
		err := os.Remove(filepath.Join(full, e.Name()))
		switch {
		case err == nil && !IsSpare(e.Name()):
			n++
		case err != nil && !errors.Is(err, os.ErrNotExist):
			errs = append(errs, err)
		}
	}
	return n, errors.Join(errs...)
}

// spareSuffix ends the name of the spare file swapWrite keeps beside a state file.
const spareSuffix = ".spare"

// spareOf is the spare file swapWrite keeps beside the state file dst.
func spareOf(dst string) string { return dst + spareSuffix }

// IsSpare reports whether the state file named name is the spare WriteVolatileState keeps
// beside a file it writes (the file's previous content, or none): not a record of its own
// to whoever lists a state directory.
func IsSpare(name string) bool { return strings.HasSuffix(name, spareSuffix) }

// stateFile is the path of rel under .git/reflect.
func (r *Repo) stateFile(rel string) string {
	return filepath.Join(r.stateDir, filepath.FromSlash(rel))
}

// statePath is stateFile(rel), its directory created.
func (r *Repo) statePath(rel string) (string, error) {
	dst := r.stateFile(rel)
	return dst, os.MkdirAll(filepath.Dir(dst), 0o755)
}

// ReadState reads a file of local state under .git/reflect; a missing file is (nil, nil). It
// reads under a shared flock of the file where swapWrite may rewrite it (see there).
func (r *Repo) ReadState(rel string) ([]byte, error) {
	data, err := readShared(r.stateFile(rel))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return data, err
}
