package sync

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/pktline"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/sideband"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

// session speaks git's pack protocol with one remote program over a stream, for the
// transports whose connection or child reflect must be able to bound and end: a path, git://
// and ssh. go-git's sessions for these live in an internal package behind a Command
// interface nobody outside go-git can implement, so this is the same exchange written
// again over reflect's streams; the messages themselves are go-git's (packp, pktline,
// sideband).
//
// The stream is opened on the first call that carries a context (go-git's fetch, list
// and reflect's push all start with AdvertisedReferencesContext), under the Timeouts that
// context carries; when any call's context ends, the stream is dropped at once.
type session struct {
	service string
	ep      *transport.Endpoint
	auth    transport.AuthMethod

	w       *watch
	st      stream
	stops   []func() bool
	ar      *packp.AdvRefs
	packRun bool  // a request was sent
	ended   bool  // the remote's answer was read to its end
	failed  bool  // the exchange broke: the stream is aborted
	err     error // why it broke
	closed  bool
}

func newSession(service string, ep *transport.Endpoint, auth transport.AuthMethod) *session {
	return &session{service: service, ep: ep, auth: auth}
}

func (s *session) connect(ctx context.Context) error {
	if s.w == nil {
		s.w = newWatch(timeoutsOf(ctx))
	}
	s.stops = append(s.stops, s.w.follow(ctx))
	if s.st != nil || s.failed {
		return nil
	}
	st, err := openStream(ctx, s.service, s.ep, s.auth, s.w)
	if err != nil {
		s.failed, s.err = true, s.w.explain(err)
		return s.err
	}
	s.st = st
	s.w.onAbort(func() { st.close(true) })
	return nil
}

// fail gives the exchange up after err and says why.
func (s *session) fail(err error) error {
	if !s.failed {
		s.failed, s.err = true, s.w.explain(err)
		s.w.abort(s.err)
	}
	return s.err
}

func (s *session) Read(p []byte) (int, error) {
	if s.failed {
		return 0, s.err
	}
	n, err := s.st.Read(p)
	switch {
	case err == io.EOF:
		s.ended = true
	case err != nil:
		err = s.fail(err)
	}
	return n, err
}

func (s *session) Write(p []byte) (int, error) {
	if s.failed {
		return 0, s.err
	}
	n, err := s.st.Write(p)
	if err != nil {
		err = s.fail(err)
	}
	return n, err
}

func (s *session) AdvertisedReferences() (*packp.AdvRefs, error) {
	return s.AdvertisedReferencesContext(context.Background())
}

// AdvertisedReferencesContext reads the refs the remote program lists first.
func (s *session) AdvertisedReferencesContext(ctx context.Context) (*packp.AdvRefs, error) {
	if err := s.connect(ctx); err != nil {
		return nil, err
	}
	if s.ar != nil {
		return s.ar, nil
	}
	if s.failed {
		return nil, s.err
	}
	receive := s.service == transport.ReceivePackServiceName
	ar := packp.NewAdvRefs()
	err := ar.Decode(s)
	var errLine *pktline.ErrorLine
	var data *packp.ErrUnexpectedData
	switch {
	case err == nil:
	case errors.Is(err, packp.ErrEmptyAdvRefs) && receive: // an empty repository
	case errors.Is(err, packp.ErrEmptyAdvRefs):
		s.Close()
		return nil, transport.ErrEmptyRemoteRepository
	case errors.As(err, &errLine):
		s.fail(err)
		if notFound(errLine.Text) {
			return nil, transport.ErrRepositoryNotFound
		}
		return nil, fmt.Errorf("the remote said: %s", errLine.Text)
	case errors.Is(err, packp.ErrEmptyInput):
		// the program ended without a word on its output: what it said is on stderr
		said := s.st.stderr()
		s.fail(err)
		if notFound(said) {
			return nil, transport.ErrRepositoryNotFound
		}
		if said != "" {
			return nil, fmt.Errorf("the remote said: %s", said)
		}
		return nil, io.ErrUnexpectedEOF
	case errors.As(err, &data) && notFound(string(data.Data)):
		s.fail(err)
		return nil, transport.ErrRepositoryNotFound
	default:
		return nil, s.fail(err)
	}
	s.w.handshook()
	if !receive && ar.IsEmpty() {
		s.Close()
		return nil, transport.ErrEmptyRemoteRepository
	}
	transport.FilterUnsupportedCapabilities(ar.Capabilities)
	s.ar = ar
	return ar, nil
}

// notFound recognises the words of git, git's daemon and the forges for a repository that
// is not there (or not there for this user).
func notFound(said string) bool {
	for _, m := range []string{"does not appear to be a git repository", "Repository not found", "no such repository",
		"access denied", "repository does not exist", "could not be found"} {
		if strings.Contains(said, m) {
			return true
		}
	}
	return false
}

// UploadPack sends what the fetch wants and has, and returns the remote's answer: the
// pack to read, then close.
func (s *session) UploadPack(ctx context.Context, req *packp.UploadPackRequest) (*packp.UploadPackResponse, error) {
	if req.IsEmpty() { // local has every object it wants
		s.Close()
		return nil, transport.ErrEmptyUploadPackRequest
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	if _, err := s.AdvertisedReferencesContext(ctx); err != nil {
		return nil, err
	}
	s.packRun = true
	bw := bufio.NewWriter(s)
	if err := req.UploadRequest.Encode(bw); err != nil {
		return nil, fmt.Errorf("sending the wants: %w", err)
	}
	if err := req.UploadHaves.Encode(bw, true); err != nil {
		return nil, fmt.Errorf("sending the haves: %w", err)
	}
	if err := pktline.NewEncoder(bw).Encodef("done\n"); err != nil {
		return nil, err
	}
	if err := bw.Flush(); err != nil {
		return nil, err
	}
	if err := s.st.closeWrite(); err != nil {
		return nil, s.fail(err)
	}
	br := bufio.NewReader(s)
	if _, err := br.Peek(1); err == io.EOF {
		// go-git's sessions take this for "nothing to send", and the fetch then records a
		// main whose objects never came; git always answers wants with a NAK or an ACK
		return nil, s.fail(fmt.Errorf("the remote hung up instead of answering the fetch: %w", io.ErrUnexpectedEOF))
	} else if err != nil {
		return nil, err
	}
	resp := packp.NewUploadPackResponse(req)
	if err := resp.Decode(struct {
		io.Reader
		io.Closer
	}{br, s}); err != nil {
		return nil, fmt.Errorf("reading the remote's answer: %w", s.w.explain(err))
	}
	return resp, nil
}

// ReceivePack sends the ref updates and the pack, and reads the remote's report.
func (s *session) ReceivePack(ctx context.Context, req *packp.ReferenceUpdateRequest) (*packp.ReportStatus, error) {
	if _, err := s.AdvertisedReferencesContext(ctx); err != nil {
		return nil, err
	}
	s.packRun = true
	bw := bufio.NewWriterSize(s, 64<<10)
	if err := req.Encode(bw); err != nil {
		return nil, s.w.explain(err)
	}
	if err := bw.Flush(); err != nil {
		return nil, err
	}
	if err := s.st.closeWrite(); err != nil {
		return nil, s.fail(err)
	}
	if !req.Capabilities.Supports(capability.ReportStatus) {
		return nil, s.Close()
	}
	var r io.Reader = s
	switch {
	case req.Capabilities.Supports(capability.Sideband64k):
		r = sideband.NewDemuxer(sideband.Sideband64k, s)
	case req.Capabilities.Supports(capability.Sideband):
		r = sideband.NewDemuxer(sideband.Sideband, s)
	}
	report := packp.NewReportStatus()
	if err := report.Decode(r); err != nil {
		return nil, fmt.Errorf("reading the remote's report: %w", s.w.explain(err))
	}
	s.ended = true
	if err := report.Error(); err != nil {
		return report, err
	}
	return report, s.Close()
}

// Close ends the exchange. A program that answered in full, or was asked for nothing, may
// finish on its own within Idle. An upload-pack still sending when its reader stopped (the
// fetch failed to store the pack, say) is killed rather than waited for: it only reads. A
// receive-pack is given Idle even then, since a kill while it holds a ref's lock would
// leave the lock file on the remote; one that stalls past a bound was killed already.
func (s *session) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	defer func() {
		for _, stop := range s.stops {
			stop()
		}
	}()
	if s.st == nil || s.failed {
		return nil
	}
	if !s.packRun {
		// as git does: a flush tells the program that nothing is wanted
		if _, err := s.Write(pktline.FlushPkt); err != nil {
			return nil
		}
	} else if !s.ended && s.service == transport.UploadPackServiceName {
		s.ended = s.drained()
	}
	return s.st.close(s.packRun && !s.ended && s.service == transport.UploadPackServiceName)
}

// drained reports whether the remote's answer ends within a few more bytes: after the pack,
// upload-pack sends a flush and exits. A remote with more to send was abandoned mid-pack.
func (s *session) drained() bool {
	n, err := io.CopyN(io.Discard, s, 4096)
	return n < 4096 && err == io.EOF
}
