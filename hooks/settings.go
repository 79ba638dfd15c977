package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"strings"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/atomicfile"
)

// DefaultHookCommand is the command Claude Code runs for LexSona's hooks.
const DefaultHookCommand = "lexsona hook claude-code"

// maxSettingsSize bounds the settings file install reads.
const maxSettingsSize = 4 << 20

// hookTimeout is the timeout, in seconds, written with the SessionStart
// and PreToolUse command hooks: they read the store only and answer within
// the hook's own 2 s bound.
const hookTimeout = 10

// installedEvents are the events LexSona hooks into.
var installedEvents = []string{EventSessionStart, EventUserPromptSubmit, EventPreToolUse}

// member is one key of a JSON object, kept in file order.
type member struct {
	Key   string
	Value json.RawMessage
}

// object is a JSON object whose key order survives a round trip.
type object []member

func (o *object) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return errors.New("not a JSON object")
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return err
		}
		*o = append(*o, member{Key: t.(string), Value: v})
	}
	return nil
}

func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.Key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.Value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func (o object) get(key string) (json.RawMessage, bool) {
	for _, m := range o {
		if m.Key == key {
			return m.Value, true
		}
	}
	return nil, false
}

func (o *object) set(key string, v json.RawMessage) {
	for i := range *o {
		if (*o)[i].Key == key {
			(*o)[i].Value = v
			return
		}
	}
	*o = append(*o, member{key, v})
}

func (o *object) remove(key string) {
	for i := range *o {
		if (*o)[i].Key == key {
			*o = append((*o)[:i], (*o)[i+1:]...)
			return
		}
	}
}

// hookGroup is one matcher group of Claude Code's settings.
type hookGroup struct {
	Matcher string       `json:"matcher,omitempty"`
	Hooks   []hookAction `json:"hooks"`
}

// hookAction is one hook of a group: a command hook (Command; Async runs
// it without holding the prompt) or an HTTP hook (URL, with Headers whose
// $VARs Claude Code fills from the variables AllowedEnvVars names).
type hookAction struct {
	Type           string            `json:"type"`
	Command        string            `json:"command,omitempty"`
	Async          bool              `json:"async,omitempty"`
	URL            string            `json:"url,omitempty"`
	Headers        map[string]string `json:"headers,omitempty"`
	AllowedEnvVars []string          `json:"allowedEnvVars,omitempty"`
	Timeout        int               `json:"timeout,omitempty"`
}

// joinArray is the JSON array of items, their bytes untouched.
func joinArray(items []json.RawMessage) json.RawMessage {
	out := []byte("[")
	for i, it := range items {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, it...)
	}
	return append(out, ']')
}

// Install is what `hooks install` writes into Claude Code's settings.
//   - Command runs LexSona's hook (DefaultHookCommand, or the binary by its
//     absolute path). SessionStart and UserPromptSubmit are always command
//     hooks: Claude Code runs no HTTP hook on SessionStart, and the prompt
//     goes to the spool so it is never lost. UserPromptSubmit is not async:
//     Claude Code stops an async hook still running when `claude -p`
//     exits, before it may have written the prompt; the hook only writes
//     the spool and starts a detached drainer, so the prompt waits for
//     that alone.
//   - Server, when set, is the base URL of a running lexsona serve: the
//     command hooks then take the persona from it and deliver captured
//     prompts to it (--server), and PreToolUse is an HTTP hook posting to
//     PreToolURL (the service's HTTPRoute, with the project's scope).
//   - Matcher is the PreToolUse matcher: the tools the enforced rules
//     check ("Bash", "Bash|Write"); "" installs no PreToolUse hook.
type Install struct {
	Command    string
	Server     string
	PreToolURL string
	Matcher    string
}

// groups are the settings groups of i, by event.
func (i Install) groups() map[string]json.RawMessage {
	cmd := i.Command
	if i.Server != "" {
		cmd += " --server " + i.Server
	}
	mk := func(g hookGroup) json.RawMessage {
		// No HTML escaping: a URL's & stays & in the user's file.
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.Encode(g)
		return bytes.TrimSpace(b.Bytes())
	}
	out := map[string]json.RawMessage{
		EventSessionStart:     mk(hookGroup{Hooks: []hookAction{{Type: "command", Command: cmd, Timeout: hookTimeout}}}),
		EventUserPromptSubmit: mk(hookGroup{Hooks: []hookAction{{Type: "command", Command: cmd, Timeout: hookTimeout}}}),
	}
	switch {
	case i.Matcher == "":
	case i.PreToolURL != "":
		out[EventPreToolUse] = mk(hookGroup{Matcher: i.Matcher, Hooks: []hookAction{{
			Type: "http", URL: i.PreToolURL,
			Headers:        map[string]string{"Authorization": "Bearer $" + HTTPKeyEnv},
			AllowedEnvVars: []string{HTTPKeyEnv},
			Timeout:        httpHookTimeout,
		}}})
	default:
		out[EventPreToolUse] = mk(hookGroup{Matcher: i.Matcher, Hooks: []hookAction{{Type: "command", Command: cmd, Timeout: hookTimeout}}})
	}
	return out
}

// isOurs reports whether a settings group is one LexSona wrote, of any
// kind and version: one of its hooks runs `… hook claude-code` or posts to
// the service's HTTPRoute.
func isOurs(raw json.RawMessage) bool {
	var g hookGroup
	if json.Unmarshal(raw, &g) != nil {
		return false
	}
	for _, h := range g.Hooks {
		if strings.Contains(h.Command, "hook claude-code") || strings.Contains(h.URL, HTTPRoute) {
			return true
		}
	}
	return false
}

// InstallClaudeCode returns settings (the bytes of a Claude Code
// settings.json, empty for none) with LexSona's hooks as i describes them,
// after the groups already there: whatever LexSona wrote before, of any
// kind, is replaced, and every other key, event and group is kept, in
// order. Errors: EINVALID when settings is not a JSON object or its hooks
// are malformed, or i has no command.
func InstallClaudeCode(settings []byte, i Install) ([]byte, error) {
	if strings.TrimSpace(i.Command) == "" {
		return nil, engine.Errorf(engine.EINVALID, "hooks install: no command to run")
	}
	if i.PreToolURL != "" {
		if err := ValidateHookURL(i.PreToolURL); err != nil {
			return nil, err
		}
	}
	ours := i.groups()
	return editHooks(settings, func(event string, groups []json.RawMessage) []json.RawMessage {
		var out []json.RawMessage
		for _, g := range groups {
			if !isOurs(g) {
				out = append(out, g)
			}
		}
		if g, ok := ours[event]; ok {
			out = append(out, g)
		}
		return out
	})
}

// UninstallClaudeCode removes every group LexSona wrote (isOurs), of any
// kind; an event left without groups, and a hooks object left empty, are
// removed too. Errors: as InstallClaudeCode.
func UninstallClaudeCode(settings []byte) ([]byte, error) {
	return editHooks(settings, func(_ string, groups []json.RawMessage) []json.RawMessage {
		var out []json.RawMessage
		for _, g := range groups {
			if !isOurs(g) {
				out = append(out, g)
			}
		}
		return out
	})
}

// editHooks applies edit to the groups of each installed event of settings.
// When edit changes no group, settings come back as they were, byte for
// byte; otherwise the file is written again with its own indentation (its
// first indented line's, else two spaces).
func editHooks(settings []byte, edit func(event string, groups []json.RawMessage) []json.RawMessage) ([]byte, error) {
	var root object
	if len(bytes.TrimSpace(settings)) > 0 {
		if err := json.Unmarshal(settings, &root); err != nil {
			return nil, engine.Errorf(engine.EINVALID, "settings are not a JSON object: %v", err)
		}
	}
	var hooks object
	if raw, ok := root.get("hooks"); ok {
		if err := json.Unmarshal(raw, &hooks); err != nil {
			return nil, engine.Errorf(engine.EINVALID, "settings \"hooks\" is not a JSON object: %v", err)
		}
	}
	changed := false
	for _, event := range installedEvents {
		var groups []json.RawMessage
		if raw, ok := hooks.get(event); ok {
			if err := json.Unmarshal(raw, &groups); err != nil {
				return nil, engine.Errorf(engine.EINVALID, "settings hooks.%s is not a list: %v", event, err)
			}
		}
		before := len(groups)
		groups = edit(event, groups)
		changed = changed || len(groups) != before || !sameGroups(groups, hooks, event)
		if len(groups) == 0 {
			hooks.remove(event)
			continue
		}
		hooks.set(event, joinArray(groups))
	}
	if len(hooks) == 0 {
		root.remove("hooks")
	} else {
		data, _ := hooks.MarshalJSON()
		root.set("hooks", data)
	}
	// MarshalJSON directly, not json.Marshal: that would rewrite < > & in
	// the user's commands as \u003c … escapes.
	if !changed && len(bytes.TrimSpace(settings)) > 0 {
		return settings, nil
	}
	flat, _ := root.MarshalJSON()
	var out bytes.Buffer
	if err := json.Indent(&out, flat, "", indentOf(settings)); err != nil {
		return nil, engine.Errorf(engine.EINTERNAL, "settings: %v", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// sameGroups reports whether groups are those of event in hooks, byte for
// byte.
func sameGroups(groups []json.RawMessage, hooks object, event string) bool {
	raw, ok := hooks.get(event)
	if !ok {
		return len(groups) == 0
	}
	var old []json.RawMessage
	if json.Unmarshal(raw, &old) != nil || len(old) != len(groups) {
		return false
	}
	for i := range old {
		if !bytes.Equal(old[i], groups[i]) {
			return false
		}
	}
	return true
}

// indentOf is the indentation unit of a JSON file: the leading white space
// of its first indented line, else two spaces.
func indentOf(data []byte) string {
	for _, line := range bytes.Split(data, []byte("\n"))[1:] {
		trimmed := bytes.TrimLeft(line, " \t")
		if len(trimmed) < len(line) && len(trimmed) > 0 {
			return string(line[:len(line)-len(trimmed)])
		}
	}
	return "  "
}

// EditSettingsFile applies edit (an install or uninstall) to the settings
// file at path, creating it when absent, and writes it only when it changes
// (atomically, keeping its mode). It reports whether it wrote.
func EditSettingsFile(path string, edit func([]byte) ([]byte, error)) (bool, error) {
	old, mode, err := atomicfile.Read(path, maxSettingsSize)
	if errors.Is(err, fs.ErrNotExist) {
		mode = 0o644
	} else if err != nil {
		return false, err
	}
	data, err := edit(old)
	if err != nil {
		return false, engine.Errorf(engine.ErrorCode(err), "%s: %s", path, engine.ErrorMessage(err))
	}
	if old == nil && bytes.Equal(data, []byte("{}\n")) {
		return false, nil
	}
	if bytes.Equal(old, data) {
		return false, nil
	}
	return true, atomicfile.Write(path, data, mode)
}
