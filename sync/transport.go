package sync

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
)

// auth finds credentials for a remote URL: https takes a token from REFLECT_GIT_TOKEN or
// GITHUB_TOKEN, else asks `git credential fill` when git is installed; ssh uses the agent;
// a local path needs nothing.
func auth(ctx context.Context, remote string) (transport.AuthMethod, error) {
	ep, err := transport.NewEndpoint(remote)
	if err != nil {
		return nil, fmt.Errorf("remote %q: %w", remote, err)
	}
	switch ep.Protocol {
	case "http", "https":
		if ep.User != "" && ep.Password != "" {
			return &githttp.BasicAuth{Username: ep.User, Password: ep.Password}, nil
		}
		for _, k := range []string{"REFLECT_GIT_TOKEN", "GITHUB_TOKEN"} {
			if tok := os.Getenv(k); tok != "" {
				user := os.Getenv("REFLECT_GIT_USER")
				if user == "" {
					user = "x-access-token"
				}
				return &githttp.BasicAuth{Username: user, Password: tok}, nil
			}
		}
		if user, pass, ok := credentialFill(ctx, ep); ok {
			return &githttp.BasicAuth{Username: user, Password: pass}, nil
		}
		return nil, nil // perhaps a public remote
	case "ssh":
		user := ep.User
		if user == "" {
			user = "git"
		}
		a, err := gitssh.NewSSHAgentAuth(user)
		if err != nil {
			return nil, agentError{fmt.Errorf("ssh remote %s needs a running ssh-agent with your key (SSH_AUTH_SOCK; start ssh-agent and ssh-add the key): %w", RedactURL(remote), err)}
		}
		// go-git asks only for the host key types known_hosts holds for this host when the
		// auth sets no HostKeyCallback, but NewSSHAgentAuth's always sets one: a server with
		// several host keys (sshd, GitHub) then shows a type known_hosts lacks, and the
		// connection fails with "knownhosts: key mismatch". Ask for the known types here.
		if db, err := gitssh.NewKnownHostsDb(); err == nil {
			a.HostKeyCallback = db.HostKeyCallback()
			a.HostKeyAlgorithms = db.HostKeyAlgorithms(sshAddr(ep))
		}
		return a, nil
	}
	return nil, nil
}

// sshAddr is the host:port go-git's ssh transport dials for ep (after ssh_config's Hostname).
func sshAddr(ep *transport.Endpoint) string {
	host, port := ep.Host, ep.Port
	if c := gitssh.DefaultSSHConfig; c != nil {
		if h := c.Get(ep.Host, "Hostname"); h != "" {
			host = h
			if p, err := strconv.Atoi(c.Get(ep.Host, "Port")); err == nil {
				port = p
			}
		}
	}
	if port <= 0 {
		port = gitssh.DefaultPort
	}
	return net.JoinHostPort(host, strconv.Itoa(port))
}

// scrub hides in err's text the credentials RedactURL hides in remote: a transport's error
// quotes the URL it used, and net/url's redaction keeps a user (https://TOKEN@host is a user).
// A password is a secret wherever it appears; a user name is hidden where it is a URL's user
// (before its @), since a name like "git" or "u" also spells words of the message
// ("git-upload-pack", "refused"), except one of a URL without a password that is long enough
// to be a token.
func scrub(err error, remote string) error {
	u, perr := url.Parse(remote)
	if perr != nil || u.User == nil || RedactURL(remote) == remote {
		return err
	}
	msg := err.Error()
	raw := rawUserinfo(remote)
	var users, secrets []string
	// net/url's Redacted form, which net/http's errors quote, keeps the user: u:***@host
	users = append(users, raw, u.User.String(), u.User.Username()+":***", u.User.Username())
	if p, ok := u.User.Password(); ok {
		secrets = append(secrets, p)
		if _, rawPass, ok := strings.Cut(raw, ":"); ok {
			secrets = append(secrets, rawPass)
		}
	} else if len(u.User.Username()) >= minTokenLen {
		secrets = append(secrets, u.User.Username(), raw)
	}
	for _, s := range users {
		msg = hideUserinfo(msg, s)
	}
	for _, s := range secrets {
		if s != "" {
			msg = strings.ReplaceAll(msg, s, "xxxxx")
		}
	}
	return scrubbed{err, msg}
}

// minTokenLen is the length from which a URL's user without a password is taken for a token
// (GitHub's are 40 characters and more, GitLab's 26) and hidden wherever it appears.
const minTokenLen = 16

// rawUserinfo is the userinfo of remote as written (percent-encoding kept), or "".
func rawUserinfo(remote string) string {
	_, rest, ok := strings.Cut(remote, "://")
	if !ok {
		return ""
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.LastIndex(rest, "@"); i >= 0 {
		return rest[:i]
	}
	return ""
}

// hideUserinfo replaces userinfo where msg has it as a URL's, right before an @ and not
// inside a longer word.
func hideUserinfo(msg, userinfo string) string {
	if userinfo == "" {
		return msg
	}
	needle := userinfo + "@"
	var b strings.Builder
	for {
		i := strings.Index(msg, needle)
		if i < 0 {
			b.WriteString(msg)
			return b.String()
		}
		if i > 0 && wordByte(msg[i-1]) {
			b.WriteString(msg[:i+len(needle)])
		} else {
			b.WriteString(msg[:i])
			b.WriteString("xxxxx@")
		}
		msg = msg[i+len(needle):]
	}
}

// wordByte says whether c may be part of a URL's user name: a match right after one is
// the tail of a longer name, not the user.
func wordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		strings.IndexByte("-._~%!$&'()*+,;=:", c) >= 0
}

// scrubbed is an error whose text had credentials taken out; errors.Is and As still see
// what it wraps.
type scrubbed struct {
	err error
	msg string
}

func (e scrubbed) Error() string { return e.msg }
func (e scrubbed) Unwrap() error { return e.err }

// agentError is a missing or unreachable ssh-agent: no key to offer the remote, an ErrAuth.
type agentError struct{ error }

func (e agentError) Unwrap() error      { return e.error }
func (agentError) Is(target error) bool { return target == ErrAuth }

// classifySSH explains an ssh failure: a host key known_hosts does not vouch for, or keys
// the server refused. It returns nil for any other error.
func classifySSH(err error, remote string) error {
	msg, u := err.Error(), RedactURL(remote)
	switch {
	case strings.Contains(msg, "knownhosts: key mismatch"):
		return fmt.Errorf("%w: %s: %v (ssh: the server's host key does not match the one in known_hosts (SSH_KNOWN_HOSTS or ~/.ssh/known_hosts), so reflect did not connect; if the key changed on purpose, replace that line)", ErrNetwork, u, err)
	case strings.Contains(msg, "knownhosts: key is unknown"):
		return fmt.Errorf("%w: %s: %v (ssh: the server's host key is not in known_hosts (SSH_KNOWN_HOSTS or ~/.ssh/known_hosts); check its fingerprint and add it, e.g. by connecting once with ssh)", ErrNetwork, u, err)
	case strings.Contains(msg, "known_hosts file"):
		return fmt.Errorf("%w: %s: %v (ssh: no known_hosts file to check the server's host key; connect once with ssh to create ~/.ssh/known_hosts)", ErrNetwork, u, err)
	case strings.Contains(msg, "ssh: unable to authenticate"):
		return fmt.Errorf("%w: %s: %v (ssh: the server accepted none of the keys your ssh-agent offered (SSH_AUTH_SOCK); ssh-add the key this remote knows)", ErrAuth, u, err)
	}
	return nil
}

// credentialFill asks git's credential helpers, as `git push` would, without prompting.
func credentialFill(ctx context.Context, ep *transport.Endpoint) (user, pass string, ok bool) {
	if _, err := exec.LookPath("git"); err != nil {
		return "", "", false
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	in := fmt.Sprintf("protocol=%s\nhost=%s\n", ep.Protocol, hostPort(ep))
	if p := strings.TrimPrefix(ep.Path, "/"); p != "" {
		in += "path=" + p + "\n"
	}
	cmd := exec.CommandContext(ctx, "git", "credential", "fill")
	cmd.Stdin = strings.NewReader(in + "\n")
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=")
	var out bytes.Buffer
	cmd.Stdout = &out
	if cmd.Run() != nil {
		return "", "", false
	}
	for _, line := range strings.Split(out.String(), "\n") {
		k, v, _ := strings.Cut(line, "=")
		switch k {
		case "username":
			user = v
		case "password":
			pass = v
		}
	}
	return user, pass, pass != ""
}

func hostPort(ep *transport.Endpoint) string {
	if ep.Port == 0 || ep.Port == 80 && ep.Protocol == "http" || ep.Port == 443 && ep.Protocol == "https" {
		return ep.Host
	}
	return fmt.Sprintf("%s:%d", ep.Host, ep.Port)
}

// RedactURL is a remote URL as it may be printed or logged: the credentials of a URL such as
// https://user:token@host/x are replaced by xxxxx. A user without a password goes too
// (https://TOKEN@github.com/x is how many write a token), except ssh's, which names an account
// (ssh://git@host/x). A URL that does not parse (an scp-like git@host:x) holds no password.
func RedactURL(remote string) string {
	u, err := url.Parse(remote)
	if err != nil || u.User == nil {
		return remote
	}
	if _, has := u.User.Password(); !has && (u.Scheme == "ssh" || strings.HasPrefix(u.Scheme, "git+ssh") || strings.HasSuffix(u.Scheme, "+ssh")) {
		return remote
	}
	u.User = url.User("xxxxx")
	return u.String()
}
