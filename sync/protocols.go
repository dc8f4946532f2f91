package sync

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"

	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
)

// go-git finds a transport by the URL's scheme in its own table (client.InstallProtocol);
// its fetch, its list and reflect's push all go through it. reflect puts its bounded
// transports there once, before main runs, so every remote a sync or a doctor reaches is
// under the Timeouts its context carries. (The demo replaces "file" afterwards with go-git's
// in-process server: no child, no network.)
func init() {
	for _, scheme := range []string{"file", "git", "ssh"} {
		client.InstallProtocol(scheme, streamTransport{})
	}
	h := newHTTPTransport()
	client.InstallProtocol("http", h)
	client.InstallProtocol("https", h)
}

// streamTransport makes reflect's own sessions (session.go).
type streamTransport struct{}

func (streamTransport) NewUploadPackSession(ep *transport.Endpoint, auth transport.AuthMethod) (transport.UploadPackSession, error) {
	return newSession(transport.UploadPackServiceName, ep, auth), nil
}

func (streamTransport) NewReceivePackSession(ep *transport.Endpoint, auth transport.AuthMethod) (transport.ReceivePackSession, error) {
	return newSession(transport.ReceivePackServiceName, ep, auth), nil
}

// httpTransport is go-git's smart-HTTP client on an http.Client whose connections are
// under a watch (dial bound, a first byte within Handshake, then Idle); each request
// already ends with its context. Its sessions add the Handshake bound on the way to the
// ref advertisement.
type httpTransport struct{ inner transport.Transport }

func newHTTPTransport() httpTransport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSHandshakeTimeout = maxTimeouts.Handshake // the connection's deadline is the real bound
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		w := newWatch(timeoutsOf(ctx))
		c, err := dial(ctx, addr, w, false)
		if err != nil {
			return nil, err
		}
		return watchConn(c, w, true), nil
	}
	return httpTransport{githttp.NewClient(&http.Client{Transport: tr})}
}

func (h httpTransport) NewUploadPackSession(ep *transport.Endpoint, auth transport.AuthMethod) (transport.UploadPackSession, error) {
	s, err := h.inner.NewUploadPackSession(ep, auth)
	if err != nil {
		return nil, err
	}
	return &httpSession{Session: s, up: s}, nil
}

func (h httpTransport) NewReceivePackSession(ep *transport.Endpoint, auth transport.AuthMethod) (transport.ReceivePackSession, error) {
	s, err := h.inner.NewReceivePackSession(ep, auth)
	if err != nil {
		return nil, err
	}
	return &httpSession{Session: s, recv: s}, nil
}

type httpSession struct {
	transport.Session
	up   transport.UploadPackSession
	recv transport.ReceivePackSession
}

func (s *httpSession) AdvertisedReferencesContext(ctx context.Context) (*packp.AdvRefs, error) {
	t := timeoutsOf(ctx)
	hctx, cancel := context.WithTimeout(ctx, t.Handshake)
	defer cancel()
	ar, err := s.Session.AdvertisedReferencesContext(hctx)
	if err != nil && ctx.Err() == nil && errors.Is(hctx.Err(), context.DeadlineExceeded) {
		err = &timeoutError{fmt.Sprintf("no answer within %s of connecting", t.Handshake)}
	}
	return ar, ranOut(ctx, err)
}

func (s *httpSession) UploadPack(ctx context.Context, req *packp.UploadPackRequest) (*packp.UploadPackResponse, error) {
	if _, err := s.AdvertisedReferencesContext(ctx); err != nil {
		return nil, err
	}
	resp, err := s.up.UploadPack(ctx, req)
	return resp, ranOut(ctx, err)
}

func (s *httpSession) ReceivePack(ctx context.Context, req *packp.ReferenceUpdateRequest) (*packp.ReportStatus, error) {
	if _, err := s.AdvertisedReferencesContext(ctx); err != nil {
		return nil, err
	}
	rs, err := s.recv.ReceivePack(ctx, req)
	return rs, ranOut(ctx, err)
}

// ranOut says so when err came from ctx's deadline.
func ranOut(ctx context.Context, err error) error {
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &timeoutError{"the time allowed ran out before the remote was done"}
	}
	return err
}
