package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/server/servertest"
)

// The tools' own work, over a fake memory: their list and schemas, the
// arguments refused before any use case runs, what each tool passes its
// use case, and how a use case's error is shown.

// recorder is a fake memory that notes what each use case was given.
type recorder struct {
	mu  sync.Mutex
	got []string
}

func (r *recorder) note(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, fmt.Sprintf(format, args...))
}

func (r *recorder) memory() *servertest.Memory {
	return &servertest.Memory{
		ClassifyFn: func(_ context.Context, text string, sc engine.Scope) (classifier.Result, error) {
			r.note("Classify %q %s/%s", text, sc.Environment, sc.Project)
			return classifier.Result{Decision: "auto_match", RuleID: ruleSed}, nil
		},
		RecordFn: func(_ context.Context, c engine.Correction) (memory.RecordResponse, bool, error) {
			r.note("Record %q %s %d %s %s %s%s", c.UserText, c.RuleID, c.Polarity, c.FrameID, c.IdempotencyKey, strings.Join(c.Scope.ContextTags, ","), instructionNote(c.Instruction))
			return memory.RecordResponse{Decision: "explicit"}, false, nil
		},
		PersonaFn: func(_ context.Context, req memory.PersonaRequest) (engine.Snapshot, error) {
			r.note("Persona %s %d", req.Scope.Project, req.Max)
			return engine.Snapshot{Prompt: "## the block"}, nil
		},
		ListRulesFn: func(_ context.Context, q memory.RulesQuery) (memory.RuleList, error) {
			r.note("ListRules %s %s %d %s scoped=%v", q.Category, q.Status, q.Limit, q.After, q.Scope != nil)
			return memory.RuleList{}, nil
		},
		ExplainRuleFn: func(_ context.Context, id string, _ time.Time, limit int) (memory.RuleHistory, error) {
			r.note("ExplainRule %s %d", id, limit)
			return memory.RuleHistory{}, nil
		},
		AddRuleFn: func(_ context.Context, n memory.NewRule) (engine.RuleView, error) {
			r.note("AddRule %s %s %q", n.RuleID, n.Category, n.Text)
			return engine.RuleView{}, nil
		},
		ReviewCandidateFn: func(_ context.Context, id string, accept bool, _ time.Time) (engine.RuleView, error) {
			r.note("ReviewCandidate %s %v", id, accept)
			return engine.RuleView{}, nil
		},
		ListConfirmationsFn: func(_ context.Context, status string, limit int) (memory.ConfirmationList, error) {
			r.note("ListConfirmations %s %d", status, limit)
			return memory.ConfirmationList{}, nil
		},
		ConfirmFn: func(_ context.Context, id int64, action, ruleID string, pol engine.Polarity, _ time.Time) (memory.ConfirmResult, error) {
			r.note("Confirm %d %s %s %d", id, action, ruleID, pol)
			return memory.ConfirmResult{}, nil
		},
		LearnedFn: func(_ context.Context, since time.Time, limit int) (memory.Learned, error) {
			r.note("Learned %s %d", since.UTC().Format(time.RFC3339), limit)
			return memory.Learned{}, nil
		},
		RetractFn: func(_ context.Context, id int64, _ time.Time) (memory.RetractResult, error) {
			r.note("Retract %d", id)
			return memory.RetractResult{}, nil
		},
	}
}

// TestMCPToolsList: the tools, each with a description and an object
// schema that refuses unknown arguments.
func TestMCPToolsList(t *testing.T) {
	cs := mcpSession(t, newFakeServer(t, Config{}, &servertest.Memory{}, nil))
	if info := cs.InitializeResult(); info == nil || info.ServerInfo.Name != Name || info.Instructions == "" {
		t.Fatalf("initialize: %+v", info)
	}
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
		if tool.Description == "" || tool.InputSchema == nil {
			t.Errorf("tool %s has no description or schema", tool.Name)
		}
		schema, _ := json.Marshal(tool.InputSchema)
		if !strings.Contains(string(schema), `"type":"object"`) || !strings.Contains(string(schema), `"additionalProperties":false`) {
			t.Errorf("tool %s schema: %s", tool.Name, schema)
		}
	}
	slices.Sort(names)
	want := []string{"add_rule", "classify_correction", "explain_rule", "get_persona", "list_confirmations", "list_learned", "list_rules", "record_correction", "resolve_confirmation", "retract_event", "review_candidate"}
	if !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
}

// TestMCPToolArguments: each tool passes its arguments to its use case;
// arguments its schema or the tool refuses never reach the memory, and
// the refusal says what was wrong.
func TestMCPToolArguments(t *testing.T) {
	rec := &recorder{}
	cs := mcpSession(t, newFakeServer(t, Config{}, rec.memory(), nil))
	for _, c := range []struct {
		name, tool string
		args       map[string]any
		want       string // what the use case got, or with isErr a substring of the tool error
		isErr      bool
	}{
		{"classify", "classify_correction", map[string]any{"text": "use rg", "environment": "work", "project": "api"}, `Classify "use rg" work/api`, false},
		{"classify missing text", "classify_correction", map[string]any{}, "text", true},
		{"classify unknown argument", "classify_correction", map[string]any{"text": "x", "projekt": "api"}, "projekt", true},
		{"record", "record_correction", map[string]any{"text": "sed is fine", "rule_id": ruleSed, "polarity": -1, "frame_id": "f-1", "idempotency_key": "k", "context_tags": []string{"migration"}},
			`Record "sed is fine" ` + ruleSed + " -1 f-1 k migration", false},
		{"record, polarity absent", "record_correction", map[string]any{"text": "use rg"}, `Record "use rg"  1   `, false},
		{"record with an instruction", "record_correction", map[string]any{"text": "别用 sed", "instruction": "Do not edit files with sed"},
			`Record "别用 sed"  1    instruction "Do not edit files with sed"`, false},
		{"record bad polarity", "record_correction", map[string]any{"text": "x", "polarity": 2}, "polarity", true},
		{"persona", "get_persona", map[string]any{"project": "api", "max": 5}, "Persona api 5", false},
		{"persona bad format", "get_persona", map[string]any{"format": "xml"}, "format", true},
		{"list rules", "list_rules", map[string]any{"category": "tool_preference", "status": "candidate", "after": "a.b"}, "ListRules tool_preference candidate 100 a.b scoped=false", false},
		{"list rules by scope", "list_rules", map[string]any{"project": "api", "limit": 7}, "ListRules   7  scoped=true", false},
		{"list rules bad status", "list_rules", map[string]any{"status": "live"}, "status", true},
		{"explain", "explain_rule", map[string]any{"rule_id": ruleSed, "history_limit": 3}, "ExplainRule " + ruleSed + " 3", false},
		{"explain negative limit", "explain_rule", map[string]any{"rule_id": ruleSed, "history_limit": -1}, "invalid: history limit -1", true},
		{"add rule", "add_rule", map[string]any{"rule_id": "tool.run-go-vet", "category": "tool_preference", "text": "Run go vet"}, `AddRule tool.run-go-vet tool_preference "Run go vet"`, false},
		{"add rule unknown argument", "add_rule", map[string]any{"rule_id": "tool.x", "category": "tool_preference", "text": "x", "project": "api"}, "project", true},
		{"add rule bad severity", "add_rule", map[string]any{"rule_id": "tool.x", "category": "tool_preference", "text": "x", "severity": "huge"}, "severity", true},
		{"review", "review_candidate", map[string]any{"rule_id": "proposed.x", "action": "reject"}, "ReviewCandidate proposed.x false", false},
		{"review bad action", "review_candidate", map[string]any{"rule_id": ruleSed, "action": "maybe"}, "action", true},
		{"list confirmations", "list_confirmations", map[string]any{"status": "all", "limit": 10}, "ListConfirmations all 10", false},
		{"list confirmations bad status", "list_confirmations", map[string]any{"status": "open"}, "status", true},
		{"list confirmations unknown argument", "list_confirmations", map[string]any{"colour": "red"}, "colour", true},
		{"resolve", "resolve_confirmation", map[string]any{"id": 4, "action": "accept", "rule_id": " tool.use-ripgrep ", "polarity": -1}, "Confirm 4 accept tool.use-ripgrep -1", false},
		{"resolve bad action", "resolve_confirmation", map[string]any{"id": 1, "action": "maybe"}, "action", true},
		{"resolve bad id", "resolve_confirmation", map[string]any{"id": -1, "action": "reject"}, "invalid: id -1", true},
		{"learned", "list_learned", map[string]any{"since": "2026-02-01T00:00:00Z", "limit": 3}, "Learned 2026-02-01T00:00:00Z 3", false},
		{"learned bad since", "list_learned", map[string]any{"since": "soon"}, `invalid: since "soon"`, true},
		{"retract", "retract_event", map[string]any{"event_id": 42}, "Retract 42", false},
		{"retract bad id", "retract_event", map[string]any{"event_id": 0}, "invalid: event_id 0", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := len(rec.got)
			text, _, isErr := callTool(t, cs, c.tool, c.args)
			if isErr != c.isErr {
				t.Fatalf("isError %v, want %v: %s", isErr, c.isErr, text)
			}
			got := rec.got[before:]
			if c.isErr {
				if !strings.Contains(text, c.want) || len(got) != 0 {
					t.Errorf("error %q (want one with %q); the memory got %q", text, c.want, got)
				}
				return
			}
			if len(got) != 1 || got[0] != c.want {
				t.Errorf("the memory got %q, want %q", got, c.want)
			}
		})
	}
}

// TestMCPToolErrors: a use case's error is shown as "code: message"; an
// internal one is logged and shown as "internal: internal error", and a
// fault it reports is noted on the default tenant's memory.
func TestMCPToolErrors(t *testing.T) {
	secret := fmt.Errorf("store: read rules: %w", fmt.Errorf("disk I/O error at /home/u/x.db"))
	var noted []error
	mem := &servertest.Memory{
		ClassifyFn: func(context.Context, string, engine.Scope) (classifier.Result, error) {
			return classifier.Result{}, engine.Errorf(engine.ENOTFOUND, "rule tool.unknown not found")
		},
		ListRulesFn: func(context.Context, memory.RulesQuery) (memory.RuleList, error) { return memory.RuleList{}, secret },
		NoteErrorFn: func(err error) { noted = append(noted, err) },
	}
	cs := mcpSession(t, newFakeServer(t, Config{}, mem, nil))
	if text, _, isErr := callTool(t, cs, "classify_correction", map[string]any{"text": "x"}); !isErr || text != "not_found: rule tool.unknown not found" {
		t.Errorf("a not-found error: %q", text)
	}
	text, _, isErr := callTool(t, cs, "list_rules", map[string]any{})
	if !isErr || text != "internal: internal error" {
		t.Errorf("an internal error is shown as %q", text)
	}
	if !slices.ContainsFunc(noted, func(err error) bool { return err == secret }) {
		t.Errorf("the store's error was not noted on the memory: %v", noted)
	}
}

// instructionNote is how the recorder notes a correction's instruction:
// nothing when it has none.
func instructionNote(in string) string {
	if in == "" {
		return ""
	}
	return fmt.Sprintf(" instruction %q", in)
}
