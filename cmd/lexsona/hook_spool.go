package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/hooks"
	"github.com/lexsona/lexsona/hooks/spool"
	"github.com/lexsona/lexsona/memory"
)

// The command hooks put what they capture on the spool (hooks/spool) and
// return; a drainer delivers it: `lexsona spool drain`, started detached by
// the hook so it outlives the hook and the agent, or the next hook run.

// spoolDir is the spool of this configuration: beside a SQLite database
// file (<file>.spool), else <data folder>/spool.
func (a *app) spoolDir() string {
	if a.dbPath != "" && !strings.Contains(a.dbPath, "://") {
		return a.dbPath + ".spool"
	}
	return filepath.Join(a.cfg.DataDir(), "spool")
}

// promptItem is a spooled prompt: the event, the scope detected from the
// project's files when it was captured, and where it goes.
type promptItem struct {
	Event  hooks.Event  `json:"event"`
	Scope  engine.Scope `json:"scope"`
	Server string       `json:"server,omitempty"`
	DB     string       `json:"db,omitempty"`
}

// violationItem is a spooled denied tool call and where it goes.
type violationItem struct {
	Violation memory.Violation `json:"violation"`
	Server    string           `json:"server,omitempty"`
	DB        string           `json:"db,omitempty"`
}

// promptKey is a prompt's idempotency key: its session and the hash of its
// text, so the same prompt of a session is recorded once however often it
// is delivered.
func promptKey(session, prompt string) string {
	sum := sha256.Sum256([]byte(prompt))
	s := sha256.Sum256([]byte(session))
	return "claude-code:" + hex.EncodeToString(s[:8]) + ":" + hex.EncodeToString(sum[:16])
}

// target says where this hook delivers: the service at server, else the
// database this configuration opens.
func (a *app) target(server string) (srv, db string) {
	if server != "" {
		return strings.TrimRight(server, "/"), ""
	}
	return "", a.dbPath
}

// spoolPrompt puts ev's prompt (cut to engine.MaxCaptureBytes) on the
// spool, durably, with the scope of its project.
func (a *app) spoolPrompt(ev hooks.Event, server string) (*spool.Spool, error) {
	sp, err := spool.Open(a.spoolDir())
	if err != nil {
		return nil, err
	}
	ev.Prompt = engine.CutAtRune(ev.Prompt, engine.MaxCaptureBytes)
	scope, err := hookScope(context.Background(), ev)
	if err != nil {
		return sp, err
	}
	srv, db := a.target(server)
	payload, err := json.Marshal(promptItem{Event: ev, Scope: scope, Server: srv, DB: db})
	if err != nil {
		return sp, err
	}
	_, err = sp.Put(spool.Item{Key: promptKey(ev.SessionID, ev.Prompt), Kind: spool.KindPrompt, Payload: payload, At: time.Now().UTC()})
	return sp, err
}

// spoolViolation puts a denied tool call on the spool instead of writing
// it: the deny never waits for the database.
func (a *app) spoolViolation(v memory.Violation, server string) error {
	sp, err := spool.Open(a.spoolDir())
	if err != nil {
		return err
	}
	srv, db := a.target(server)
	payload, err := json.Marshal(violationItem{Violation: v, Server: srv, DB: db})
	if err != nil {
		return err
	}
	sum := sha256.Sum256(payload)
	_, err = sp.Put(spool.Item{Key: "violation:" + hex.EncodeToString(sum[:16]), Kind: spool.KindViolation, Payload: payload, At: time.Now().UTC()})
	return err
}

// startDrainer starts `lexsona spool drain` in a session of its own, its
// output discarded, and does not wait for it: it delivers what waits on
// the spool after the hook (and the agent) ended. A process that is not
// the lexsona binary (a test linking the command) drains in-process
// instead. Errors: starting it.
func (a *app) startDrainer() error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	if filepath.Base(exe) != "lexsona" {
		sp, err := spool.Open(a.spoolDir())
		if err != nil {
			return err
		}
		_, err = sp.Drain(context.Background(), a.deliver)
		return err
	}
	cmd := exec.Command(exe, "spool", "drain", "--quiet")
	cmd.Env = os.Environ()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}

// deliver hands one spooled item to its receiver: the service it names,
// else the memory of this configuration — only when the item is for this
// configuration's database (another one's waits for its own drainer).
func (a *app) deliver(ctx context.Context, it spool.Item) error {
	return receiver{db: a.dbPath, apiKey: a.cfg.APIKey, local: func(ctx context.Context) (*memory.Service, error) {
		core, err := a.openCore(ctx)
		if err != nil {
			return nil, err
		}
		return core.Memory, nil
	}}.deliver(ctx, it)
}

// receiver delivers spooled items: those for the database db to the memory
// local opens, those naming a service to it over HTTP — unless own says
// the service is the one draining, which takes them in-process.
type receiver struct {
	db     string
	apiKey string
	local  func(context.Context) (*memory.Service, error)
	own    func(server string) bool
}

func (r receiver) deliver(ctx context.Context, it spool.Item) error {
	var p struct {
		Server string `json:"server"`
		DB     string `json:"db"`
	}
	if err := json.Unmarshal(it.Payload, &p); err != nil {
		return fmt.Errorf("%w: %v", spool.ErrRefused, err)
	}
	switch {
	case p.Server != "" && (r.own == nil || !r.own(p.Server)):
		return deliverHTTP(ctx, p.Server, r.apiKey, it)
	case p.Server == "" && p.DB != r.db:
		return errOtherDB
	}
	mem, err := r.local(ctx)
	if err != nil {
		return err
	}
	switch it.Kind {
	case spool.KindPrompt:
		var pi promptItem
		if err := json.Unmarshal(it.Payload, &pi); err != nil {
			return fmt.Errorf("%w: %v", spool.ErrRefused, err)
		}
		_, err = mem.Capture(ctx, engine.Correction{UserText: pi.Event.Prompt, Scope: pi.Scope,
			FrameID: hooks.FrameID(pi.Event.SessionID), IdempotencyKey: it.Key, At: it.At})
		return refusedIfInvalid(err)
	case spool.KindViolation:
		var vi violationItem
		if err := json.Unmarshal(it.Payload, &vi); err != nil {
			return fmt.Errorf("%w: %v", spool.ErrRefused, err)
		}
		_, err = mem.RecordViolation(ctx, vi.Violation)
		return refusedIfInvalid(err)
	}
	return fmt.Errorf("%w: unknown spool item kind %q", spool.ErrRefused, it.Kind)
}

// errOtherDB leaves an item for another database's drainer.
var errOtherDB = fmt.Errorf("spool item for another database")

// refusedIfInvalid marks the receiver's EINVALID and ETOOLARGE as refusals
// (delivering again would be refused again); other errors stay transient.
func refusedIfInvalid(err error) error {
	switch engine.ErrorCode(err) {
	case engine.EINVALID, engine.ETOOLARGE:
		return fmt.Errorf("%w: %s", spool.ErrRefused, engine.ErrorMessage(err))
	}
	return err
}

// deliverHTTP posts a spooled prompt to the service's hook route with its
// idempotency key and API key ($LEXSONA_API_KEY), the scope as the query.
// A violation is never spooled for a service: its PreToolUse HTTP hook
// records it there. 4xx but 401, 408 and 429 are refusals.
func deliverHTTP(ctx context.Context, server, apiKey string, it spool.Item) error {
	if it.Kind != spool.KindPrompt {
		return fmt.Errorf("%w: a %s item for a service: the service's PreToolUse route records violations", spool.ErrRefused, it.Kind)
	}
	var pi promptItem
	if err := json.Unmarshal(it.Payload, &pi); err != nil {
		return fmt.Errorf("%w: %v", spool.ErrRefused, err)
	}
	body, _ := json.Marshal(pi.Event)
	route := server + hooks.HTTPRoute + "?" + scopeValues(pi.Scope).Encode()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, route, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%w: %v", spool.ErrRefused, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", it.Key)
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	switch {
	case resp.StatusCode < 300:
		return nil
	case resp.StatusCode == http.StatusRequestTimeout || resp.StatusCode == http.StatusTooManyRequests ||
		resp.StatusCode == http.StatusUnauthorized || resp.StatusCode >= 500:
		return fmt.Errorf("%s answered %s: %s", route, resp.Status, strings.TrimSpace(string(msg)))
	}
	return fmt.Errorf("%w: %s answered %s: %s", spool.ErrRefused, route, resp.Status, strings.TrimSpace(string(msg)))
}

// scopeValues is the query naming scope.
func scopeValues(s engine.Scope) url.Values {
	q := url.Values{}
	if s.Project != "" {
		q.Set("project", s.Project)
	}
	if s.Environment != "" {
		q.Set("environment", s.Environment)
	}
	if s.AgentFamily != "" {
		q.Set("agent_family", s.AgentFamily)
	}
	if len(s.ContextTags) > 0 {
		q.Set("context_tags", strings.Join(s.ContextTags, ","))
	}
	return q
}
