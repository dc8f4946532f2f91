package sync

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
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
			return nil, fmt.Errorf("ssh remote %s needs a running ssh-agent with your key: %w", remote, err)
		}
		return a, nil
	}
	return nil, nil
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

// redactURL hides a password in a remote URL before it is printed.
func redactURL(remote string) string {
	u, err := url.Parse(remote)
	if err != nil || u.User == nil {
		return remote
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}
