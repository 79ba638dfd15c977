package hub

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
)

// fetchAttempts is how many times one Pull resumes an interrupted transfer.
const fetchAttempts = 3

type fetcher struct {
	ctx    context.Context
	client *http.Client
	opts   Options
}

// remoteFile is what the hub's headers say about a file.
type remoteFile struct {
	url    string // where to GET it (after the hub's redirect, if any)
	size   int64  // -1 when unknown
	sha256 string // LFS files: the content's sha256
	gitSHA string // other files: the git blob sha1
}

// fetch downloads one repository path unless it is already there and intact.
// first marks the first request of the Pull: failing to connect there is
// "the hub cannot be reached".
func (f *fetcher) fetch(path string, first bool) (File, error) {
	dst, err := f.opts.target(path)
	if err != nil {
		return File{}, err
	}
	rf, err := f.head(path, first)
	if err != nil {
		return File{}, err
	}
	file := File{Path: path, Status: "downloaded", Size: rf.size, Check: rf.check()}
	if err := verifyFile(dst, rf); err == nil {
		file.Status = "kept"
		return file, nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return File{}, engine.Errorf(engine.EUNAVAILABLE, "cannot create %s: %v", filepath.Dir(dst), models.StatCause(err))
	}
	part := dst + ".part"
	if st, err := os.Stat(part); err == nil && st.Size() > 0 {
		file.Status = "resumed"
	}
	for attempt := 1; ; attempt++ {
		err = f.download(path, part, rf)
		var ie *interruptedError
		if !errors.As(err, &ie) || attempt == fetchAttempts || f.ctx.Err() != nil {
			break
		}
	}
	if err != nil {
		var ie *interruptedError
		if errors.As(err, &ie) {
			return File{}, engine.Errorf(engine.EUNAVAILABLE, "the download of %s was interrupted after %d bytes (%v): run the command again to resume", path, ie.have, ie.err)
		}
		return File{}, err
	}
	if err := verifyFile(part, rf); err != nil {
		os.Remove(part)
		return File{}, engine.Errorf(engine.EUNAVAILABLE, "%s from %s: %v; the partial file was removed, run the command again", path, f.opts.BaseURL, err)
	}
	if err := os.Rename(part, dst); err != nil {
		return File{}, engine.Errorf(engine.EUNAVAILABLE, "cannot move %s into place: %v", dst, err)
	}
	return file, nil
}

// head asks the hub for a file's size and checksum without following its
// redirect to the storage CDN (the checksum headers are on the redirect).
func (f *fetcher) head(path string, first bool) (remoteFile, error) {
	noRedirect := *f.client
	noRedirect.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	u := f.opts.fileURL(path)
	for hops := 0; ; hops++ {
		req, err := http.NewRequestWithContext(f.ctx, http.MethodHead, u, nil)
		if err != nil {
			return remoteFile{}, engine.Errorf(engine.EINVALID, "bad hub URL %q: %v", u, err)
		}
		req.Header.Set("Accept-Encoding", "identity")
		resp, err := noRedirect.Do(req)
		if err != nil {
			if first && f.ctx.Err() == nil {
				return remoteFile{}, unreachable(f.opts.BaseURL, err)
			}
			return remoteFile{}, engine.Errorf(engine.EUNAVAILABLE, "cannot ask %s about %s: %v", f.opts.BaseURL, path, err)
		}
		resp.Body.Close()
		redirect := resp.StatusCode >= 300 && resp.StatusCode < 400
		rf := remoteFile{url: u, size: headerInt(resp.Header, "X-Linked-Size", -1)}
		if rf.size < 0 && !redirect {
			rf.size = resp.ContentLength // -1 when unknown
		}
		etag := cleanETag(cmpOr(resp.Header.Get("X-Linked-Etag"), resp.Header.Get("ETag")))
		switch {
		case len(etag) == 64 && isHex(etag):
			rf.sha256 = etag
		case len(etag) == 40 && isHex(etag):
			rf.gitSHA = etag
		}
		switch {
		case resp.StatusCode == http.StatusOK:
			return rf, nil
		case redirect:
			loc, err := resp.Location()
			if err != nil {
				return remoteFile{}, engine.Errorf(engine.EUNAVAILABLE, "%s answered %s for %s without a usable Location", f.opts.BaseURL, resp.Status, path)
			}
			if strings.HasPrefix(resp.Header.Get("Location"), "/") && hops < 5 {
				u = loc.String() // the hub's own redirect (a renamed repository): ask again there
				continue
			}
			rf.url = loc.String()
			return rf, nil
		case resp.StatusCode == http.StatusNotFound:
			hint := ""
			if f.opts.Variant != "" {
				hint = "; check --variant (the model publishes " + strings.Join(KnownVariants, ", ") + ")"
			}
			return remoteFile{}, engine.Errorf(engine.EINVALID, "%s has no %s at revision %s (HTTP 404)%s", f.opts.Repo, path, f.opts.Revision, hint)
		case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
			return remoteFile{}, engine.Errorf(engine.EUNAVAILABLE, "%s refused %s (%s): the repository may be gated or private", f.opts.BaseURL, u, resp.Status)
		default:
			return remoteFile{}, engine.Errorf(engine.EUNAVAILABLE, "%s answered %s for %s: try again later", f.opts.BaseURL, resp.Status, path)
		}
	}
}

// interruptedError is a transfer that broke off; the .part file keeps what arrived.
type interruptedError struct {
	have int64
	err  error
}

func (e *interruptedError) Error() string {
	return fmt.Sprintf("interrupted after %d bytes: %v", e.have, e.err)
}

// download appends to part, resuming with a Range request when it holds a
// prefix of the file, and starts over when the server ignores the range.
func (f *fetcher) download(path, part string, rf remoteFile) error {
	have := int64(0)
	if st, err := os.Stat(part); err == nil {
		have = st.Size()
	}
	if rf.size >= 0 && have > rf.size {
		have = 0
	}
	if rf.size >= 0 && have == rf.size {
		return nil // complete; fetch verifies it
	}
	req, err := http.NewRequestWithContext(f.ctx, http.MethodGet, rf.url, nil)
	if err != nil {
		return engine.Errorf(engine.EINVALID, "bad download URL %q: %v", rf.url, err)
	}
	req.Header.Set("Accept-Encoding", "identity")
	if have > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", have))
	}
	resp, err := f.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) && f.ctx.Err() == nil {
			return &interruptedError{have, err}
		}
		return engine.Errorf(engine.EUNAVAILABLE, "downloading %s: %v", path, err)
	}
	defer resp.Body.Close()
	flags := os.O_CREATE | os.O_WRONLY
	switch {
	case resp.StatusCode == http.StatusPartialContent && have > 0 && strings.HasPrefix(resp.Header.Get("Content-Range"), fmt.Sprintf("bytes %d-", have)):
		flags |= os.O_APPEND
	case resp.StatusCode == http.StatusOK:
		flags |= os.O_TRUNC
		have = 0
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable:
		os.Remove(part) // the .part does not match the file any more
		return &interruptedError{0, fmt.Errorf("the server refused to resume (%s)", resp.Status)}
	default:
		return engine.Errorf(engine.EUNAVAILABLE, "downloading %s: %s answered %s", path, f.opts.BaseURL, resp.Status)
	}
	out, err := os.OpenFile(part, flags, 0o644)
	if err != nil {
		return engine.Errorf(engine.EUNAVAILABLE, "cannot write %s: %v", part, models.StatCause(err))
	}
	n, cerr := io.Copy(out, &progressReader{r: resp.Body, p: f.opts.Progress, step: models.Step{What: path, Done: have, Total: rf.size, Bytes: true}})
	if err := errors.Join(out.Sync(), out.Close()); err != nil {
		return engine.Errorf(engine.EUNAVAILABLE, "cannot write %s: %v", part, err)
	}
	if cerr != nil {
		if f.ctx.Err() != nil {
			return engine.Errorf(engine.EUNAVAILABLE, "downloading %s was cancelled after %d bytes (%v): run the command again to resume", path, have+n, f.ctx.Err())
		}
		return &interruptedError{have + n, cerr}
	}
	if rf.size >= 0 && have+n < rf.size {
		return &interruptedError{have + n, io.ErrUnexpectedEOF}
	}
	return nil
}

// verifyFile checks path's size and checksum against rf. The error says which.
func verifyFile(path string, rf remoteFile) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if rf.size >= 0 && st.Size() != rf.size {
		return fmt.Errorf("size mismatch: got %d bytes, the hub says %d", st.Size(), rf.size)
	}
	var h hash.Hash
	want := rf.sha256
	switch {
	case rf.sha256 != "":
		h = sha256.New()
	case rf.gitSHA != "":
		h, want = sha1.New(), rf.gitSHA
		fmt.Fprintf(h, "blob %d\x00", st.Size())
	default:
		return nil // nothing to check against
	}
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	if _, err := io.Copy(h, fh); err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return fmt.Errorf("checksum mismatch: got %s, the hub says %s", got, want)
	}
	return nil
}

func headerInt(h http.Header, key string, def int64) int64 {
	if n, err := strconv.ParseInt(h.Get(key), 10, 64); err == nil && n >= 0 {
		return n
	}
	return def
}

func cleanETag(s string) string {
	return strings.Trim(strings.TrimPrefix(strings.TrimSpace(s), "W/"), `"`)
}

func isHex(s string) bool {
	_, err := hex.DecodeString(s)
	return err == nil
}

// progressReader reports the bytes read through it as a step's progress.
// The step ends (Done == Total) with the read that completes the file; a
// file of unknown size ends at EOF.
type progressReader struct {
	r    io.Reader
	p    models.Progress
	step models.Step
}

func (pr *progressReader) Read(b []byte) (int, error) {
	n, err := pr.r.Read(b)
	pr.step.Done += int64(n)
	if err == io.EOF && pr.step.Total < 0 {
		pr.step.Total = pr.step.Done
	}
	if n > 0 || err == io.EOF {
		pr.p.Report(pr.step)
	}
	return n, err
}
