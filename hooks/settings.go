package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"

	"github.com/lexsona/lexsona/engine"
)

// DefaultHookCommand is the command Claude Code runs for LexSona's hooks.
const DefaultHookCommand = "lexsona hook claude-code"

// hookTimeout is the timeout, in seconds, written with each command hook:
// a command hook may load the model (about half a second) before it
// answers.
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

// hookAction is one hook of a group: a command hook (Command) or an HTTP
// hook (URL, with Headers whose $VARs Claude Code fills from the variables
// AllowedEnvVars names).
type hookAction struct {
	Type           string            `json:"type"`
	Command        string            `json:"command,omitempty"`
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

// ourGroup is the group LexSona adds to each installed event.
func ourGroup(command string) json.RawMessage {
	g, _ := json.Marshal(hookGroup{Hooks: []hookAction{{Type: "command", Command: command, Timeout: hookTimeout}}})
	return g
}

// isOurs reports whether a settings group is ours: equal to it but for the
// hooks' timeouts (an install of another version, or a timeout the user
// changed, is still ours).
func isOurs(raw, ours json.RawMessage) bool {
	return bytes.Equal(canonicalGroup(raw, true), canonicalGroup(ours, true))
}

// sameGroup reports whether a settings group is exactly ours.
func sameGroup(raw, ours json.RawMessage) bool {
	return bytes.Equal(canonicalGroup(raw, false), canonicalGroup(ours, false))
}

// canonicalGroup is a group's JSON with its keys sorted, without the
// timeout of each of its hooks when noTimeout; nil when it is not JSON.
func canonicalGroup(raw json.RawMessage, noTimeout bool) []byte {
	var g any
	if json.Unmarshal(raw, &g) != nil {
		return nil
	}
	if m, ok := g.(map[string]any); ok && noTimeout {
		if hs, ok := m["hooks"].([]any); ok {
			for _, h := range hs {
				if h, ok := h.(map[string]any); ok {
					delete(h, "timeout")
				}
			}
		}
	}
	out, _ := json.Marshal(g)
	return out
}

// InstallClaudeCode returns settings (the bytes of a Claude Code settings.json,
// empty for none) with LexSona's hooks running command added to SessionStart
// and UserPromptSubmit, after the groups already there; every other key,
// event and group is kept, in order. A group already installed is not added
// twice. Errors: EINVALID when settings is not a JSON object or its hooks are
// malformed.
func InstallClaudeCode(settings []byte, command string) ([]byte, error) {
	return installGroup(settings, ourGroup(command))
}

// UninstallClaudeCode removes exactly the groups InstallClaudeCode adds (an
// event left without groups, and a hooks object left empty, are removed too).
// Errors: as InstallClaudeCode.
func UninstallClaudeCode(settings []byte, command string) ([]byte, error) {
	return uninstallGroup(settings, ourGroup(command))
}

// installGroup appends ours to each installed event unless it is there; a
// group of ours with other timeouts is replaced where it stands.
func installGroup(settings []byte, ours json.RawMessage) ([]byte, error) {
	return editHooks(settings, func(groups []json.RawMessage) []json.RawMessage {
		for i, g := range groups {
			if isOurs(g, ours) {
				if !sameGroup(g, ours) {
					groups[i] = ours
				}
				return groups
			}
		}
		return append(groups, ours)
	})
}

// uninstallGroup removes every group of ours (see isOurs) from the
// installed events.
func uninstallGroup(settings []byte, ours json.RawMessage) ([]byte, error) {
	return editHooks(settings, func(groups []json.RawMessage) []json.RawMessage {
		var out []json.RawMessage
		for _, g := range groups {
			if !isOurs(g, ours) {
				out = append(out, g)
			}
		}
		return out
	})
}

func editHooks(settings []byte, edit func([]json.RawMessage) []json.RawMessage) ([]byte, error) {
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
	for _, event := range installedEvents {
		var groups []json.RawMessage
		if raw, ok := hooks.get(event); ok {
			if err := json.Unmarshal(raw, &groups); err != nil {
				return nil, engine.Errorf(engine.EINVALID, "settings hooks.%s is not a list: %v", event, err)
			}
		}
		groups = edit(groups)
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
	flat, _ := root.MarshalJSON()
	var out bytes.Buffer
	if err := json.Indent(&out, flat, "", "  "); err != nil {
		return nil, engine.Errorf(engine.EINTERNAL, "settings: %v", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// EditSettingsFile applies edit (InstallClaudeCode, UninstallClaudeCode or
// their HTTP forms, with command as their command or URL) to the settings
// file at path, creating it when absent, and writes it only when
// it changes (atomically, keeping its mode). It reports whether it wrote.
func EditSettingsFile(path, command string, edit func([]byte, string) ([]byte, error)) (bool, error) {
	old, mode, err := readExisting(path)
	if errors.Is(err, fs.ErrNotExist) {
		mode = 0o644
	} else if err != nil {
		return false, err
	}
	data, err := edit(old, command)
	if err != nil {
		return false, engine.Errorf(engine.ErrorCode(err), "%s: %s", path, engine.ErrorMessage(err))
	}
	if old == nil && bytes.Equal(data, []byte("{}\n")) {
		return false, nil
	}
	if bytes.Equal(old, data) {
		return false, nil
	}
	return true, atomicWrite(path, data, mode)
}
