package sync

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/internal/testenv"
	"github.com/reflect-memory/reflect/learnings"
)

func setHome(t testing.TB) { testenv.SetHome(t) }

func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// bare makes an empty bare repository, the remote.
func bare(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "remote.git")
	out, err := exec.Command("git", "init", "-q", "--bare", "-b", "main", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("git init --bare: %v\n%s", err, out)
	}
	return dir
}

// laptop is one clone of the memory.
type laptop struct {
	t    testing.TB
	name string
	dir  string
}

func (l *laptop) repo() *gitstore.Repo {
	r, err := gitstore.Open(l.dir)
	if err != nil {
		l.t.Fatal(err)
	}
	return r
}

func (l *laptop) sync() *Result {
	l.t.Helper()
	res, err := Sync(context.Background(), l.repo(), Options{})
	if err != nil {
		l.t.Fatalf("%s: sync: %v", l.name, err)
	}
	return res
}

func (l *laptop) add(title string) *learnings.Learning {
	l.t.Helper()
	ln := learnings.New(title, "github.com/acme/shop", time.Now())
	ln.Body = "Body of " + title + ".\n"
	ln.Source.Machine = l.name
	if _, err := learnings.Create(context.Background(), l.repo(), ln, "learn: "+title); err != nil {
		l.t.Fatal(err)
	}
	return ln
}

func (l *laptop) change(id string, fn func(*learnings.Learning)) {
	l.t.Helper()
	_, _, err := learnings.Change(context.Background(), l.repo(), []string{id}, func(ls []*learnings.Learning) (string, error) {
		fn(ls[0])
		return "edit " + id, nil
	})
	if err != nil {
		l.t.Fatal(err)
	}
}

func (l *laptop) healthy() {
	l.t.Helper()
	if st := git(l.t, l.dir, "status", "--porcelain"); st != "" {
		l.t.Fatalf("%s: git status: %s", l.name, st)
	}
	git(l.t, l.dir, "fsck", "--strict", "--no-progress")
}

// converged checks that every laptop is at the same healthy HEAD and that the bare
// repository repo, read by the git CLI, has it as main; it returns that HEAD.
func converged(t testing.TB, repo string, ls []*laptop) string {
	t.Helper()
	head := git(t, ls[0].dir, "rev-parse", "HEAD")
	for _, l := range ls {
		if h := git(t, l.dir, "rev-parse", "HEAD"); h != head {
			t.Errorf("%s is at %s, %s at %s", l.name, h, ls[0].name, head)
		}
		l.healthy()
	}
	if h := git(t, repo, "rev-parse", "refs/heads/main"); h != head {
		t.Errorf("the remote's main is %s, the laptops' HEAD %s", h, head)
	}
	git(t, repo, "fsck", "--strict", "--no-progress")
	return head
}

// laptops clones the memory at remote n times (the first one starts it).
func laptops(t testing.TB, remote string, n int) []*laptop {
	t.Helper()
	var out []*laptop
	for i := 0; i < n; i++ {
		l := &laptop{t: t, name: fmt.Sprintf("laptop-%c", 'a'+i), dir: filepath.Join(t.TempDir(), "mem")}
		if _, _, err := Clone(context.Background(), l.dir, remote, Options{}); err != nil {
			t.Fatalf("clone %d: %v", i, err)
		}
		out = append(out, l)
	}
	return out
}

func TestTwoLaptops(t *testing.T) {
	setHome(t)
	remote := bare(t)
	ls := laptops(t, remote, 2)
	a, b := ls[0], ls[1]
	if git(t, a.dir, "rev-parse", "HEAD") != git(t, b.dir, "rev-parse", "HEAD") {
		t.Fatal("the second clone does not start where the first one is")
	}
	la := a.add("OAuth state must be decoded first")
	if res := a.sync(); res.Action != "push" || res.Out != 1 {
		t.Errorf("a: %+v", res)
	}
	lb := b.add("Run integration tests against postgres")
	res := b.sync()
	if res.Action != "merge" || len(res.In) != 1 || !res.Pushed {
		t.Errorf("b: %+v", res)
	}
	if res := a.sync(); res.Action != "fast-forward" {
		t.Errorf("a again: %+v", res)
	}
	for _, l := range ls {
		l.healthy()
		for _, id := range []string{la.ID, lb.ID} {
			if _, _, err := learnings.Get(l.repo(), id); err != nil {
				t.Errorf("%s lacks %s: %v", l.name, id, err)
			}
		}
	}
	if git(t, a.dir, "rev-parse", "HEAD") != git(t, b.dir, "rev-parse", "HEAD") {
		t.Error("the laptops did not converge")
	}
	parents := git(t, b.dir, "log", "-1", "--format=%P", "HEAD")
	if len(strings.Fields(parents)) != 2 {
		t.Errorf("the merge has parents %q", parents)
	}
}

func TestSameLearningEditedOnBothSides(t *testing.T) {
	setHome(t)
	remote := bare(t)
	ls := laptops(t, remote, 2)
	a, b := ls[0], ls[1]
	l := a.add("Cache the JWKS")
	a.sync()
	b.sync()
	a.change(l.ID, func(x *learnings.Learning) {
		x.Tags = append(x.Tags, "oidc")
		x.Body = "Refetch the JWKS when a kid is unknown.\n"
		x.Updated = time.Now().Add(time.Minute)
	})
	b.change(l.ID, func(x *learnings.Learning) {
		x.Tags = append(x.Tags, "cache")
		x.Seen = 4
		x.Body = "Rate-limit the refetch to once in 30 s.\n"
		x.Status = learnings.StatusArchived
	})
	a.sync()
	b.sync()
	a.sync()
	for _, lt := range ls {
		got, raw, err := learnings.Get(lt.repo(), l.ID)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(got.Tags, ",") != "oidc,cache" && strings.Join(got.Tags, ",") != "cache,oidc" {
			t.Errorf("%s: tags %v", lt.name, got.Tags)
		}
		if got.Seen != 4 || got.Status != learnings.StatusArchived {
			t.Errorf("%s: seen %d status %s", lt.name, got.Seen, got.Status)
		}
		if !strings.Contains(got.Body, "Refetch the JWKS") || !strings.Contains(got.Body, "Rate-limit the refetch") {
			t.Errorf("%s: a body was lost:\n%s", lt.name, got.Body)
		}
		if strings.Contains(string(raw), "<<<<<<<") || strings.Contains(string(raw), ">>>>>>>") {
			t.Errorf("%s: conflict marker", lt.name)
		}
		lt.healthy()
	}
	if git(t, a.dir, "rev-parse", "HEAD^{tree}") != git(t, b.dir, "rev-parse", "HEAD^{tree}") {
		t.Error("trees differ")
	}
}

func TestNoRemoteAndBadRemote(t *testing.T) {
	setHome(t)
	r, _, err := gitstore.Init(context.Background(), filepath.Join(t.TempDir(), "mem"), gitstore.InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Sync(context.Background(), r, Options{}); err == nil || !strings.Contains(err.Error(), "reflect remote set") {
		t.Errorf("no remote: %v", err)
	}
	if err := r.SetRemote("origin", filepath.Join(t.TempDir(), "nothing-here")); err != nil {
		t.Fatal(err)
	}
	before := git(t, r.Root(), "rev-parse", "HEAD")
	_, err = Sync(context.Background(), r, Options{})
	if err == nil {
		t.Fatal("sync with a missing remote succeeded")
	}
	t.Logf("missing remote: %v", err)
	if git(t, r.Root(), "rev-parse", "HEAD") != before {
		t.Error("a failed sync moved HEAD")
	}
	os.Remove(filepath.Join(r.Root(), "nothing"))
}
