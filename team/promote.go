package team

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/internal/lazyregexp"
	"github.com/reflect-memory/reflect/learnings"
	memsync "github.com/reflect-memory/reflect/sync"
	"github.com/reflect-memory/reflect/transcript/redact"
)

// BranchPrefix starts every promotion's branch on a team remote.
const BranchPrefix = "reflect/promote/"

// Promotion is what Promote did.
type Promotion struct {
	Team    string   `json:"team"`
	Branch  string   `json:"branch"`
	Commit  string   `json:"commit"`
	IDs     []string `json:"ids"`
	Skipped []string `json:"skipped,omitempty"` // already on the team's main as they are
	Remote  string   `json:"remote"`
	// Compare is where a person opens the pull request by hand (GitHub, GitLab), or the git
	// commands that merge the branch (any other remote).
	Compare string `json:"compare"`
	PR      string `json:"pr,omitempty"`      // the pull request gh opened
	GHNote  string `json:"gh_note,omitempty"` // why no pull request was opened
}

// SecretError refuses a promotion: the redactor, run again over the file with every
// detector on, found something in it. It names the line, never the secret.
type SecretError struct {
	ID   string
	Path string
	Line int
	Kind string
	Text string // the line with the finding replaced by its marker
}

func (e *SecretError) Error() string {
	return fmt.Sprintf("promotion refused: %s:%d holds what looks like a secret (%s): %s — edit the learning (reflect edit %s) and promote again",
		e.Path, e.Line, e.Kind, e.Text, e.ID)
}

// ErrNothing: every learning asked for is on the team's main already, as it is.
var ErrNothing = errors.New("nothing to promote")

// ScanSecrets runs the redactor over file with the strictest reading: any secret it would
// replace, and any personal path or login it would write as ~ or <user>, is a finding. It
// reads each line, then views of the whole file that put back together what a line break
// splits: the file as it is (a detector that spans lines), and the file with its shell line
// continuations joined (a backslash at a line's end and the newline; and again with the next
// line's indentation), as a shell would run `token ghp_\` over two lines. line is the
// file's line the finding starts on.
func ScanSecrets(file []byte) (line int, kind, text string, found bool) {
	lines := strings.Split(string(file), "\n")
	for i, l := range lines {
		if ms := redact.Find(l); len(ms) > 0 {
			return i + 1, ms[0].Kind, redact.String(l), true
		}
		if p := redact.Personal(l); p != l {
			return i + 1, "personal path or login", p, true
		}
	}
	for _, v := range joinedViews(string(file)) {
		if ms := redact.Find(v.text); len(ms) > 0 {
			start := strings.LastIndexByte(v.text[:ms[0].Start], '\n') + 1
			end := strings.IndexByte(v.text[ms[0].Start:], '\n')
			if end < 0 || ms[0].Start+end < ms[0].End {
				end = len(v.text)
			} else {
				end += ms[0].Start
			}
			return v.line[ms[0].Start], ms[0].Kind, oneLine(redact.String(v.text[start:end])), true
		}
		at := 0
		for _, l := range strings.SplitAfter(v.text, "\n") {
			if p := redact.Personal(l); p != l {
				return v.line[at], "personal path or login", oneLine(p), true
			}
			at += len(l)
		}
	}
	return 0, "", "", false
}

// joined is a view of a file with some line breaks taken out; line[i] is the file's line
// (from 1) that byte i of text comes from.
type joined struct {
	text string
	line []int
}

// joinedViews are the file whole, and with its backslash-newline continuations joined,
// without and with the next line's leading blanks.
func joinedViews(file string) []joined {
	views := []joined{join(file, false, false)}
	if strings.Contains(file, "\\\n") || strings.Contains(file, "\\\r\n") {
		views = append(views, join(file, true, false), join(file, true, true))
	}
	return views
}

func join(file string, continuations, indent bool) joined {
	var b strings.Builder
	line := make([]int, 0, len(file))
	n := 1
	for i := 0; i < len(file); i++ {
		if continuations && file[i] == '\\' {
			j := i + 1
			if j < len(file) && file[j] == '\r' {
				j++
			}
			if j < len(file) && file[j] == '\n' {
				n++
				i = j
				for indent && i+1 < len(file) && (file[i+1] == ' ' || file[i+1] == '\t') {
					i++
				}
				continue
			}
		}
		b.WriteByte(file[i])
		line = append(line, n)
		if file[i] == '\n' {
			n++
		}
	}
	return joined{b.String(), line}
}

// oneLine keeps a refusal's quote on one line.
func oneLine(s string) string {
	return strings.NewReplacer("\r\n", " ⏎ ", "\n", " ⏎ ", "\r", " ").Replace(s)
}

// withPromotedBy sets the frontmatter's promoted_by to who (replacing a value it had).
func withPromotedBy(file []byte, who string) []byte {
	line := "promoted_by: " + strings.NewReplacer("\n", " ", "\r", " ").Replace(who)
	if loc := promotedRef.Regexp().FindIndex(file); loc != nil && bytes.Index(file, []byte("\n---")) > loc[0] {
		return append(append(append([]byte{}, file[:loc[0]]...), line...), file[loc[1]:]...)
	}
	end := bytes.Index(file, []byte("\n---"))
	if end < 0 {
		return file
	}
	return append(append(append([]byte{}, file[:end+1]...), line+"\n"...), file[end+1:]...)
}

// PromoteOptions shape one promotion.
type PromoteOptions struct {
	Team string
	IDs  []string // learning ids (or unique prefixes) of the personal memory
	Now  time.Time
	// Batch names the branch for the set (reflect/promote/batch-…) even when only one of
	// them is not on the team's main yet.
	Batch bool
	// GH is the GitHub CLI to open the pull request with: "" looks up gh on PATH. It is the
	// user's program, never one a memory names.
	GH string
}

// Promote copies learnings of the personal memory, each with its id and source kept and
// promoted_by added, onto a branch of the team memory off its main, and pushes the branch:
// reflect/promote/<id> for one learning, reflect/promote/batch-<hash of the ids> for
// several. The secret scan runs over every file first; any finding refuses the whole
// promotion before anything is written. With gh installed and signed in, it opens a pull
// request whose description is the learnings rendered for a reviewer.
func Promote(ctx context.Context, personal *gitstore.Repo, o PromoteOptions) (*Promotion, error) {
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if len(o.IDs) == 0 {
		return nil, fmt.Errorf("%w: no learning named", ErrNothing)
	}
	type item struct {
		l    *learnings.Learning
		file []byte
	}
	var items []item
	seen := map[string]bool{}
	for _, id := range o.IDs {
		l, raw, err := learnings.Get(personal, id)
		if err != nil {
			return nil, err
		}
		if seen[l.ID] {
			continue
		}
		seen[l.ID] = true
		if l.Status != learnings.StatusCurrent {
			return nil, &learnings.FieldError{Path: l.RelPath(), Field: "status", Msg: fmt.Sprintf("is %s: only a current learning is promoted", l.Status)}
		}
		if n, kind, text, found := ScanSecrets(raw); found {
			return nil, &SecretError{ID: l.ID, Path: l.RelPath(), Line: n, Kind: kind, Text: text}
		}
		items = append(items, item{l, raw})
	}
	sort.Slice(items, func(i, j int) bool { return items[i].l.ID < items[j].l.ID })

	// start from what the team's main holds now
	if _, err := Pull(ctx, personal, o.Team); err != nil {
		return nil, fmt.Errorf("sync team %s before promoting: %w", o.Team, err)
	}
	tr, err := Open(personal, o.Team)
	if err != nil {
		return nil, err
	}
	defer tr.Close()
	base, err := tr.Head()
	if err != nil {
		return nil, err
	}
	sig := personal.Signature(o.Now)
	who := fmt.Sprintf("%s <%s>", sig.Name, sig.Email)
	s := filesystem.NewStorage(osfs.New(tr.GitDir()), cache.NewObjectLRUDefault())
	defer s.Close()
	root := plumbing.ZeroHash
	if !base.IsZero() {
		if root, err = tr.TreeOf(base, ""); err != nil {
			return nil, err
		}
	}
	p := &Promotion{Team: o.Team, Remote: tr.Remote("origin")}
	var promoted []item
	for _, it := range items {
		file := withPromotedBy(it.file, who)
		if _, err := learnings.Parse(it.l.RelPath(), file); err != nil {
			return nil, err
		}
		if have, err := tr.ReadFile(it.l.RelPath()); err == nil && bytes.Equal(withPromotedBy(have, who), file) {
			p.Skipped = append(p.Skipped, it.l.ID)
			continue
		}
		blob, err := putBlob(s, file)
		if err != nil {
			return nil, gitstore.AsWriteError(tr.Root(), err)
		}
		if root, err = putFile(s, root, it.l.RelPath(), blob); err != nil {
			return nil, gitstore.AsWriteError(tr.Root(), err)
		}
		promoted = append(promoted, item{it.l, file})
		p.IDs = append(p.IDs, it.l.ID)
	}
	if len(promoted) == 0 {
		return p, fmt.Errorf("%w: %s already on team %s's main", ErrNothing, strings.Join(p.Skipped, ", "), o.Team)
	}
	var msg string
	if len(promoted) == 1 && !o.Batch {
		p.Branch = BranchPrefix + promoted[0].l.ID
		msg = fmt.Sprintf("promote %s: %s\n\nPromoted-by: %s\n", promoted[0].l.ID, promoted[0].l.Title, who)
	} else {
		sum := sha256.Sum256([]byte(strings.Join(p.IDs, "\n")))
		p.Branch = BranchPrefix + "batch-" + hex.EncodeToString(sum[:4])
		var b strings.Builder
		fmt.Fprintf(&b, "promote %d learning(s)\n\n", len(promoted))
		for _, it := range promoted {
			fmt.Fprintf(&b, "- %s: %s\n", it.l.ID, it.l.Title)
		}
		fmt.Fprintf(&b, "\nPromoted-by: %s\n", who)
		msg = b.String()
	}
	// what gh is handed is scanned as the files were, before anything is pushed: it is built
	// from their fields, and a secret must not reach the forge through it either
	ls := make([]*learnings.Learning, len(promoted))
	for i, it := range promoted {
		ls[i] = it.l
	}
	title := "reflect: " + promoted[0].l.Title
	if len(promoted) > 1 {
		title = fmt.Sprintf("reflect: %d learnings for %s", len(promoted), promoted[0].l.Project)
	}
	title = redact.String(title)
	body := ReviewBody(ls, who)
	for _, part := range []struct{ name, text string }{{"the pull request's title", title}, {"the pull request's description", body}} {
		if n, kind, text, found := ScanSecrets([]byte(part.text)); found {
			return nil, &SecretError{ID: promoted[0].l.ID, Path: part.name, Line: n, Kind: kind, Text: text}
		}
	}
	commit, err := putCommit(s, root, base, sig, redact.String(msg))
	if err != nil {
		return nil, gitstore.AsWriteError(tr.Root(), err)
	}
	p.Commit = commit.String()
	if err := s.SetReference(plumbing.NewHashReference(plumbing.NewBranchReferenceName(p.Branch), commit)); err != nil {
		return nil, gitstore.AsWriteError(tr.Root(), err)
	}
	if err := memsync.PushBranch(ctx, tr, "origin", p.Branch, commit, base); err != nil {
		return p, fmt.Errorf("push %s to team %s: %w", p.Branch, o.Team, err)
	}
	p.Compare = CompareURL(p.Remote, p.Branch)
	p.PR, p.GHNote = openPR(ctx, o.GH, tr.Root(), p.Remote, p.Branch, title, body)
	p.Remote = memsync.RedactURL(p.Remote)
	return p, nil
}

// ReviewBody renders learnings for a reviewer: what each says, why it is worth keeping (its
// body), the evidence it came from and what it is anchored to.
func ReviewBody(ls []*learnings.Learning, who string) string {
	var b strings.Builder
	for i, l := range ls {
		if i > 0 {
			b.WriteString("\n---\n\n")
		}
		fmt.Fprintf(&b, "### %s\n\n`%s` · %s · %s confidence · project `%s`\n\n", l.Title, l.ID, l.Kind, l.Confidence, l.Project)
		fmt.Fprintf(&b, "**What:** %s\n\n", l.Title)
		if body := strings.TrimSpace(l.Body); body != "" {
			b.WriteString("**Why:**\n\n" + body + "\n\n")
		}
		var ev []string
		if l.Source.Harness != "" {
			ev = append(ev, "captured by "+l.Source.Harness)
		}
		if l.Source.Trigger != "" {
			ev = append(ev, "on "+l.Source.Trigger)
		}
		if l.Source.Session != "" {
			ev = append(ev, "session `"+l.Source.Session+"`")
		}
		if l.Source.Commit != "" {
			ev = append(ev, "project at commit `"+l.Source.Commit+"`")
		}
		if l.Seen > 1 {
			ev = append(ev, fmt.Sprintf("learned %d times", l.Seen))
		}
		if len(ev) > 0 {
			fmt.Fprintf(&b, "**Evidence:** %s.\n", strings.Join(ev, ", "))
		}
		var anchors []string
		for _, f := range l.Source.Files {
			anchors = append(anchors, "`"+f+"`")
		}
		for _, e := range append(append([]string{}, l.Entities...), l.Triggers...) {
			anchors = append(anchors, "`"+e+"`")
		}
		if len(anchors) > 0 {
			fmt.Fprintf(&b, "**Anchors:** %s.\n", strings.Join(anchors, ", "))
		}
	}
	fmt.Fprintf(&b, "\nPromoted by %s with `reflect promote`. Merging makes it reviewed: teammates' agents recall it after their next `reflect team sync`.\n", who)
	return redact.String(b.String())
}

// CompareURL is where a person opens the pull request for branch by hand: GitHub's compare
// page, GitLab's new merge request, or, for any other remote, the git commands that
// review and merge it.
func CompareURL(remote, branch string) string {
	host, path := hostPath(remote)
	switch {
	case host == "github.com" || strings.HasPrefix(host, "github."):
		return "https://" + host + "/" + path + "/compare/main..." + branch + "?expand=1"
	case strings.Contains(host, "gitlab"):
		return "https://" + host + "/" + path + "/-/merge_requests/new?merge_request%5Bsource_branch%5D=" + url.QueryEscape(branch)
	}
	return fmt.Sprintf("git fetch %s %s && git diff main...FETCH_HEAD && git merge --no-ff FETCH_HEAD", memsync.RedactURL(remote), branch)
}

var scpLike = lazyregexp.New(`^[A-Za-z0-9._-]+@([A-Za-z0-9.-]+):(.+)$`)

// hostPath reads a web host and owner/name path out of a remote URL ("" for a path).
func hostPath(remote string) (host, path string) {
	if m := scpLike.FindStringSubmatch(remote); m != nil {
		host, path = m[1], m[2]
	} else if u, err := url.Parse(remote); err == nil && u.Host != "" {
		host, path = u.Hostname(), u.Path
	}
	return strings.ToLower(host), strings.TrimSuffix(strings.Trim(path, "/"), ".git")
}

// ghTimeout bounds each gh call: a pull request is one API request.
const ghTimeout = 60 * time.Second

// openPR opens the pull request with gh when it is installed and signed in. It returns the
// pull request's URL, or why none was opened.
func openPR(ctx context.Context, gh, dir, remote, branch, title, body string) (pr, note string) {
	if gh == "" {
		p, err := exec.LookPath("gh")
		if err != nil {
			return "", "the GitHub CLI (gh) is not installed: open the pull request from the compare link"
		}
		gh = p
	}
	ctx, cancel := context.WithTimeout(ctx, ghTimeout)
	defer cancel()
	run := func(args ...string) (string, string, error) {
		cmd := exec.CommandContext(ctx, gh, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GH_PROMPT_DISABLED=1", "NO_COLOR=1", "REFLECT_INTERNAL=1")
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		return out.String(), errb.String(), err
	}
	if _, _, err := run("auth", "status"); err != nil {
		return "", "gh is not signed in (gh auth login): open the pull request from the compare link"
	}
	f, err := os.CreateTemp("", "reflect-pr-*.md")
	if err != nil {
		return "", "could not write the pull request's description: " + err.Error()
	}
	defer os.Remove(f.Name())
	f.WriteString(body)
	f.Close()
	args := []string{"pr", "create", "--head", branch, "--base", "main", "--title", title, "--body-file", f.Name()}
	if host, path := hostPath(remote); host != "" && strings.Count(path, "/") == 1 {
		args = append(args, "--repo", host+"/"+path)
	}
	out, errOut, err := run(args...)
	if err != nil {
		tail := strings.TrimSpace(errOut)
		if len(tail) > 300 {
			tail = tail[len(tail)-300:]
		}
		return "", fmt.Sprintf("gh pr create failed (%v): %s", err, tail)
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "https://") || strings.HasPrefix(l, "http://") {
			pr = l
		}
	}
	if pr == "" {
		pr = strings.TrimSpace(out)
	}
	return pr, ""
}
