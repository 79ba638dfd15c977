package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
)

// fakeUseCases answers with fixed results and records what it was asked:
// the front end's tests need no store.
type fakeUseCases struct {
	capture    memory.CaptureResponse
	review     memory.ReviewCount
	records    []engine.Correction
	scopes     []engine.Scope
	enforced   []memory.Enforcement
	violations []memory.Violation
	violErr    error
}

// detected is the command hook's scope: the project's files.
func detected(_ context.Context, ev Event) (engine.Scope, error) {
	return DetectScope(ev.Cwd, AgentClaude)
}

func (f *fakeUseCases) Persona(_ context.Context, req memory.PersonaRequest) (engine.Snapshot, error) {
	f.scopes = append(f.scopes, req.Scope)
	return engine.Snapshot{Rules: []engine.SnapshotRule{{RuleID: "x.y"}}, Prompt: "## LexSona Behavioral Rules (scope: " + req.Scope.String() + ")\n"}, nil
}

func (f *fakeUseCases) Capture(_ context.Context, c engine.Correction) (memory.CaptureResponse, error) {
	f.records = append(f.records, c)
	f.scopes = append(f.scopes, c.Scope)
	return f.capture, nil
}

func (f *fakeUseCases) Review(context.Context, engine.Scope) (memory.ReviewCount, error) {
	return f.review, nil
}

func (f *fakeUseCases) Enforce(_ context.Context, s engine.Scope, tool string, input map[string]any) (*memory.Denial, error) {
	f.scopes = append(f.scopes, s)
	return memory.Deny(f.enforced, tool, input), nil
}

func (f *fakeUseCases) RecordViolation(_ context.Context, v memory.Violation) (memory.ViolationResult, error) {
	if f.violErr != nil {
		return memory.ViolationResult{}, f.violErr
	}
	f.violations = append(f.violations, v)
	return memory.ViolationResult{}, nil
}

// captured is a CaptureResponse of action with a record result on rule.
func captured(action, decision, rule, eventType string, score float64, pol engine.Polarity) memory.CaptureResponse {
	rec := &memory.RecordResponse{Decision: decision, Score: score, Polarity: pol,
		Candidates: []engine.Candidate{{RuleID: rule, Score: score}}}
	switch action {
	case memory.CaptureRecorded, memory.CaptureStated:
		rec.RecordResult = &memory.RecordResult{RuleID: rule, EventType: engine.EventType(eventType)}
	case memory.CapturePending:
		rec.PendingID = 7
	}
	return memory.CaptureResponse{RecordResponse: rec, Action: action}
}

func projectDir(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "My Repo")
	os.MkdirAll(filepath.Join(dir, ".git"), 0o755)
	os.WriteFile(filepath.Join(dir, ".git", "config"), []byte("[core]\n\tbare = false\n[remote \"origin\"]\n\turl = git@github.com:acme/billing-api.git\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module x\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "package.json"), []byte("{}"), 0o644)
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	return dir
}

func TestHandleClaudeCodeEvents(t *testing.T) {
	dir := projectDir(t)
	common := `"session_id":"abc123","transcript_path":"/tmp/t.jsonl","cwd":"` + filepath.Join(dir, "sub") + `","permission_mode":"default"`
	persona := "## LexSona Behavioral Rules (scope: */billing-api/claude[go,javascript])"
	askNote := "LexSona: this prompt may be a correction about rule [tool.pnpm-not-npm] (score 0.61, below the automatic band). Before acting on it, ask the user whether they are correcting you on that rule. If they confirm, record it with " +
		"`lexsona record --rule tool.pnpm-not-npm --frame abc123 --text \\\"\\u003ctheir words\\u003e\\\"`; if not, do nothing."
	pending := captured(memory.CapturePending, "confirm", "tool.pnpm-not-npm", "", 0.61, engine.Reinforce)
	ctxOut := func(event string, parts ...string) string {
		data, _ := json.Marshal(contextOutput(event, strings.Join(parts, "\n\n")))
		return string(data)
	}
	stated := captured(memory.CaptureStated, "new_rule", "user.always-use-tabs-a1b2c3", "", 0.2, engine.Reinforce)
	stated.RuleText = "always use tabs"
	for _, tc := range []struct {
		name, event string
		capture     memory.CaptureResponse
		review      memory.ReviewCount
		opts        Options
		want        string // exact stdout JSON; "" for none
		records     int
	}{
		{"session start, empty inbox", `{` + common + `,"hook_event_name":"SessionStart","source":"startup"}`, memory.CaptureResponse{}, memory.ReviewCount{}, Options{},
			ctxOut("SessionStart", persona, AgentInstruction+"\n"), 0},
		{"session start names the inbox", `{` + common + `,"hook_event_name":"SessionStart","source":"startup"}`, memory.CaptureResponse{}, memory.ReviewCount{Pending: 2, Proposed: 1},
			Options{ReviewURL: "http://127.0.0.1:8080/"},
			ctxOut("SessionStart", persona, AgentInstruction, "LexSona: 3 items wait for the user's review (2 possible corrections, 1 proposed rules): review them at http://127.0.0.1:8080/. Mention this to the user once; do not act on it yourself.\n"), 0},
		{"session start, notes off", `{` + common + `,"hook_event_name":"SessionStart","source":"startup"}`, memory.CaptureResponse{}, memory.ReviewCount{Pending: 2}, Options{Notes: NotesOff},
			ctxOut("SessionStart", persona, AgentInstruction+"\n"), 0},
		{"recorded contradiction", `{` + common + `,"hook_event_name":"UserPromptSubmit","prompt":"no, sed -i is fine here"}`,
			captured(memory.CaptureRecorded, "auto_match", "tool.no-sed", "counterexample", 0.91, engine.Counter), memory.ReviewCount{}, Options{},
			`{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"LexSona recorded this prompt as a counterexample of rule [tool.no-sed] (auto_match). Here the user does not want that rule applied."}}`, 1},
		{"pending goes to the inbox silently", `{` + common + `,"hook_event_name":"UserPromptSubmit","prompt":"use pnpm"}`, pending, memory.ReviewCount{}, Options{}, "", 1},
		{"pending with notes ask", `{` + common + `,"hook_event_name":"UserPromptSubmit","prompt":"use pnpm"}`, pending, memory.ReviewCount{}, Options{Notes: NotesAsk},
			`{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"` + askNote + `"}}`, 1},
		{"remember: states a rule", `{` + common + `,"hook_event_name":"UserPromptSubmit","prompt":"remember: always use tabs"}`,
			stated, memory.ReviewCount{}, Options{Notes: NotesAsk},
			ctxOut("UserPromptSubmit", `LexSona stored what the user asked to remember as rule [user.always-use-tabs-a1b2c3] "always use tabs". Follow it from now on.`), 1},
		{"ordinary prompt: silent", `{` + common + `,"hook_event_name":"UserPromptSubmit","prompt":"add a login page"}`,
			memory.CaptureResponse{Action: memory.CaptureIgnored}, memory.ReviewCount{}, Options{Notes: NotesAsk}, "", 1},
		{"pre tool use: no decision", `{` + common + `,"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"sed -i s/a/b/ f"},"tool_use_id":"toolu_01"}`,
			memory.CaptureResponse{}, memory.ReviewCount{}, Options{}, "", 0},
		{"other event: nothing", `{` + common + `,"hook_event_name":"Stop","stop_hook_active":false}`, memory.CaptureResponse{}, memory.ReviewCount{}, Options{}, "", 0},
		{"empty prompt", `{` + common + `,"hook_event_name":"UserPromptSubmit","prompt":"  "}`, memory.CaptureResponse{}, memory.ReviewCount{}, Options{}, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := ReadEvent(strings.NewReader(tc.event))
			if err != nil {
				t.Fatal(err)
			}
			b := &fakeUseCases{capture: tc.capture, review: tc.review}
			out, err := HandleClaudeCode(context.Background(), ev, b, detected, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if out != nil {
				data, _ := json.Marshal(out)
				got = string(data)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("output (-want +got):\n%s", d)
			}
			if len(b.records) != tc.records {
				t.Fatalf("%d captures, want %d", len(b.records), tc.records)
			}
			for _, r := range b.records {
				if r.FrameID != "abc123" || r.UserText != ev.Prompt || r.RuleID != "" {
					t.Errorf("capture request %+v", r)
				}
			}
			for _, s := range b.scopes {
				if s.String() != "*/billing-api/claude[go,javascript]" {
					t.Errorf("scope %s", s)
				}
			}
		})
	}
}

func TestReadEventRefusesBadInput(t *testing.T) {
	for _, in := range []string{"", "not json", `{"session_id":"x"}`, `[1]`} {
		if _, err := ReadEvent(strings.NewReader(in)); engine.ErrorCode(err) != engine.EINVALID {
			t.Errorf("%q: err %v", in, err)
		}
	}
}

func TestDetectScopeOverrides(t *testing.T) {
	dir := projectDir(t)
	os.WriteFile(filepath.Join(dir, ProjectFile), []byte("project: billing\nenvironment: work\ntags: [backend]\ndetect_tags: false\n"), 0o644)
	s, err := DetectScope(filepath.Join(dir, "sub"), AgentClaude)
	if err != nil || s.String() != "work/billing/claude[backend]" {
		t.Errorf("scope %s %v", s, err)
	}
	plain := filepath.Join(t.TempDir(), "Some_Folder")
	os.Mkdir(plain, 0o755)
	if s, err := DetectScope(plain, AgentClaude); err != nil || s.Project != "some_folder" {
		t.Errorf("folder name scope %+v %v", s, err)
	}
	os.WriteFile(filepath.Join(plain, ProjectFile), []byte("project: [oops\n"), 0o644)
	if _, err := DetectScope(plain, AgentClaude); engine.ErrorCode(err) != engine.EINVALID {
		t.Errorf("malformed %s: %v", ProjectFile, err)
	}
}

// installCmd and uninstall are the edits of the round trip: command hooks
// with a matcher for Bash.
func installCmd(b []byte) ([]byte, error) {
	return InstallClaudeCode(b, Install{Command: DefaultHookCommand, Matcher: "Bash"})
}

func TestInstallUninstallRoundTrip(t *testing.T) {
	orig := mustRead(t, "testdata/settings/other.json.in")
	path := filepath.Join(t.TempDir(), ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, orig, 0o600)
	changed, err := EditSettingsFile(path, installCmd)
	if err != nil || !changed {
		t.Fatalf("install: %v %v", changed, err)
	}
	installed := mustRead(t, path)
	golden(t, "settings/other.installed.golden", installed)
	if changed, err := EditSettingsFile(path, installCmd); err != nil || changed {
		t.Errorf("second install changed the file: %v %v", changed, err)
	}
	if changed, err := EditSettingsFile(path, UninstallClaudeCode); err != nil || !changed {
		t.Fatalf("uninstall: %v %v", changed, err)
	}
	golden(t, "settings/other.uninstalled.golden", mustRead(t, path))
	// Uninstalled equals the original, up to formatting.
	var a, b any
	json.Unmarshal(orig, &a)
	json.Unmarshal(mustRead(t, path), &b)
	if d := cmp.Diff(a, b); d != "" {
		t.Errorf("uninstall did not restore the settings:\n%s", d)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode().Perm())
	}
	// A missing file: install creates it, uninstall empties the hooks.
	fresh := filepath.Join(t.TempDir(), "settings.json")
	EditSettingsFile(fresh, installCmd)
	golden(t, "settings/fresh.installed.golden", mustRead(t, fresh))
	EditSettingsFile(fresh, UninstallClaudeCode)
	if got := string(mustRead(t, fresh)); got != "{}\n" {
		t.Errorf("fresh after uninstall: %q", got)
	}
	os.WriteFile(fresh, []byte(`{"hooks": []}`), 0o644)
	if _, err := EditSettingsFile(fresh, installCmd); engine.ErrorCode(err) != engine.EINVALID {
		t.Errorf("malformed hooks: %v", err)
	}
}

// Project files are read only when they are bounded regular files: a
// .lexsona.yaml that is a FIFO or a link to a device is refused at once (never
// read, never waited on), a .git/config of that kind is ignored.
func TestDetectScopeReadsOnlyBoundedRegularFiles(t *testing.T) {
	for _, tc := range []struct {
		name    string
		setup   func(dir string) error
		project string // "" when an EINVALID error is wanted
	}{
		{"yaml links to /dev/zero", func(dir string) error { return os.Symlink("/dev/zero", filepath.Join(dir, ProjectFile)) }, ""},
		{"yaml is a fifo", func(dir string) error { return syscall.Mkfifo(filepath.Join(dir, ProjectFile), 0o644) }, ""},
		{"yaml is a folder", func(dir string) error { return os.Mkdir(filepath.Join(dir, ProjectFile), 0o755) }, ""},
		{"yaml over the cap", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, ProjectFile), []byte("project: x\n#"+strings.Repeat("a", MaxProjectFileSize)), 0o644)
		}, ""},
		{"git config is a fifo", func(dir string) error {
			os.Mkdir(filepath.Join(dir, ".git"), 0o755)
			return syscall.Mkfifo(filepath.Join(dir, ".git", "config"), 0o644)
		}, "proj"},
		{"git config links to /dev/zero", func(dir string) error {
			os.Mkdir(filepath.Join(dir, ".git"), 0o755)
			return os.Symlink("/dev/zero", filepath.Join(dir, ".git", "config"))
		}, "proj"},
		{"yaml at the cap", func(dir string) error {
			body := "project: capped\n#"
			return os.WriteFile(filepath.Join(dir, ProjectFile), []byte(body+strings.Repeat("a", MaxProjectFileSize-len(body))), 0o644)
		}, "capped"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "proj")
			os.Mkdir(dir, 0o755)
			if err := tc.setup(dir); err != nil {
				t.Fatal(err)
			}
			s, err := DetectScope(dir, AgentClaude)
			if tc.project == "" {
				if engine.ErrorCode(err) != engine.EINVALID {
					t.Fatalf("scope %v, err %v; want EINVALID", s, err)
				}
				return
			}
			if err != nil || s.Project != tc.project {
				t.Fatalf("scope %v, err %v; want project %q", s, err, tc.project)
			}
		})
	}
}
