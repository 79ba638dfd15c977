package eval

import (
	"bufio"
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/lexsona/lexsona/engine"
)

// The prompt stream: what a hook sees, prompt after prompt, in sessions of
// one developer on one project (testdata/stream/, described in
// testdata/stream/STREAM.md). Kinds and stances of its items:
const (
	StreamOrdinary   = "ordinary"
	StreamCorrection = "correction"
	StanceSupport    = "support"
	StanceContradict = "contradict"
	FormAgreement    = "agreement"
)

// StreamTestWriters are the writers whose sessions form the held-out split;
// every other writer's are dev. Splitting by writer keeps one person's
// habits of phrasing on one side.
var StreamTestWriters = []string{"w2", "w4"}

// StreamItem is one prompt of the stream.
type StreamItem struct {
	ID      string   `json:"id"`
	Session string   `json:"session"`
	Tags    []string `json:"tags"`
	Text    string   `json:"text"`
	Kind    string   `json:"kind"`
	Form    string   `json:"form"`
	Rule    *string  `json:"rule"`
	Stance  *string  `json:"stance"`
	// Writer and Split are derived from the id.
	Writer string `json:"-"`
	Split  string `json:"-"`
}

// IsCorrection reports whether the item is a correction or standing
// instruction (what the gate should let through).
func (it StreamItem) IsCorrection() bool { return it.Kind == StreamCorrection }

// RuleID is the rule the item is about ("" for none).
func (it StreamItem) RuleID() string {
	if it.Rule == nil {
		return ""
	}
	return *it.Rule
}

// Contradicts reports whether the item says the opposite of its rule.
func (it StreamItem) Contradicts() bool { return it.Stance != nil && *it.Stance == StanceContradict }

// Scope is the session's scope: its tags, agent family claude.
func (it StreamItem) Scope() engine.Scope {
	return engine.Scope{AgentFamily: "claude", ContextTags: it.Tags}
}

//go:embed testdata/stream/*.jsonl
var streamFS embed.FS

// ShippedStreamName names the built-in prompt stream in reports.
const ShippedStreamName = "eval/testdata/stream"

// ShippedStream returns the built-in prompt stream, every writer's file in
// name order. Errors: EINVALID naming the file and line of an item that does
// not decode or breaks the labels' rules (see parseStream), or whose rule
// known does not name (when known is not nil).
func ShippedStream(known func(id string) bool) ([]StreamItem, error) {
	names, err := fs.Glob(streamFS, "testdata/stream/*.jsonl")
	if err != nil {
		return nil, err
	}
	var out []StreamItem
	for _, n := range names {
		data, err := streamFS.ReadFile(n)
		if err != nil {
			return nil, err
		}
		items, err := parseStream(data, path.Base(n), known)
		if err != nil {
			return nil, err
		}
		out = append(out, items...)
	}
	return out, nil
}

// parseStream decodes one writer's JSONL file. Each item needs an id
// WRITER-NNNN, a session, a text, kind ordinary (no rule, no stance) or
// correction (stance support or contradict when it names a rule, none
// otherwise).
func parseStream(data []byte, file string, known func(string) bool) ([]StreamItem, error) {
	var out []StreamItem
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	seen := map[string]bool{}
	for line := 1; sc.Scan(); line++ {
		var it StreamItem
		bad := func(format string, args ...any) error {
			return engine.Errorf(engine.EINVALID, "%s:%d: %s", file, line, fmt.Sprintf(format, args...))
		}
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			return nil, bad("%v", err)
		}
		w, _, ok := strings.Cut(it.ID, "-")
		switch {
		case !ok || it.Session == "" || strings.TrimSpace(it.Text) == "":
			return nil, bad("want an id WRITER-NNNN, a session and a text")
		case seen[it.ID]:
			return nil, bad("id %s repeated", it.ID)
		case it.Kind != StreamOrdinary && it.Kind != StreamCorrection:
			return nil, bad("kind %q: want ordinary or correction", it.Kind)
		case it.Kind == StreamOrdinary && (it.Rule != nil || it.Stance != nil):
			return nil, bad("an ordinary prompt has no rule and no stance")
		case it.Rule != nil && (it.Stance == nil || *it.Stance != StanceSupport && *it.Stance != StanceContradict):
			return nil, bad("a correction of a rule has stance support or contradict")
		case it.Rule == nil && it.Stance != nil:
			return nil, bad("a correction of no rule has no stance")
		case it.Rule != nil && known != nil && !known(*it.Rule):
			return nil, bad("unknown rule %q", *it.Rule)
		}
		seen[it.ID] = true
		it.Writer = w
		it.Split = "dev"
		if slices.Contains(StreamTestWriters, w) {
			it.Split = "test"
		}
		out = append(out, it)
	}
	return out, sc.Err()
}

// SplitStream returns the items of split ("dev" or "test").
func SplitStream(items []StreamItem, split string) []StreamItem {
	var out []StreamItem
	for _, it := range items {
		if it.Split == split {
			out = append(out, it)
		}
	}
	return out
}
