package e2e

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/lexsona/lexsona/engine"
)

// importChannel loads an export whose records hold the secrets: with
// registry, a registry's YAML and the texts of its rules; without, a user
// rule's text and a correction's text and agent output. The export is
// that of a store filled through the API with markers, which the secrets
// then replace.
func importChannel(registry bool) channel {
	name := "lexsona import (rules, corrections)"
	if registry {
		name = "lexsona import (registry)"
	}
	return channel{name, func(t *testing.T, h *corpusHarness, id string, texts []string) []string {
		return importTexts(t, h, id, texts, registry)
	}}
}

func importTexts(t *testing.T, h *corpusHarness, id string, texts []string, registry bool) []string {
	src := &corpusHarness{bin: h.bin, db: filepath.Join(h.dir, "import-source-"+id+".db"), dir: h.dir}
	p := MustStartServe(t, h.bin, src.db)
	if _, err := p.WaitReady(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	src.http = NewClient(p.Base, 2)
	markers := make([]string, len(texts))
	for i := range texts {
		markers[i] = fmt.Sprintf("qmarker%04dq", i)
		rule := fmt.Sprintf("corpus.%s-%d", id, i)
		for _, req := range []struct {
			path string
			body any
		}{
			{"/v1/rules", newRule(rule, "Never commit this: "+markers[i])},
			{"/v1/corrections", map[string]any{"text": "CORRECT[" + rule + "]: " + markers[i], "agent_output": markers[i]}},
		} {
			if registry {
				break
			}
			if st, body := src.post(t, req.path, req.body); st != http.StatusCreated && st != http.StatusOK {
				t.Fatalf("filling the store to export: %s: %d %s", req.path, st, clipBody(body))
			}
		}
	}
	if name := "imported-" + id; registry {
		if st, body := src.syncRegistry(t, name, corpusRegistry(name, markers, strconv.Quote)); st != http.StatusOK {
			t.Fatalf("filling the store to export: registry sync: %d %s", st, clipBody(body))
		}
	}
	p.Stop(t)
	exp := MustRunCLI(t, h.bin, "", "--db", src.db, "export")
	if exp.Code != 0 {
		t.Fatalf("lexsona export: exit %d: %s", exp.Code, exp.Stderr)
	}
	file := filepath.Join(h.dir, "import.jsonl")
	if err := os.WriteFile(file, withSecrets(t, exp.Stdout, markers, texts), 0o600); err != nil {
		t.Fatal(err)
	}
	notes := make([]string, len(texts))
	if r := MustRunCLI(t, h.bin, "", "--db", h.db, "--embedder", "lexical", "import", file); r.Code != 0 {
		for i := range notes {
			notes[i] = fmt.Sprintf("exit %d: %s", r.Code, strings.TrimSpace(r.Stderr))
		}
	}
	return notes
}

// withSecrets returns the export with each marker replaced by its text,
// the digests of the texts and registries it changed computed again and
// the words that stated a rule cut as the store cuts them.
func withSecrets(t *testing.T, export string, markers, texts []string) []byte {
	plain := make([]string, 0, 2*len(markers))
	quoted := make([]string, 0, 2*len(markers)) // inside a YAML double-quoted scalar
	for i, m := range markers {
		q, _ := json.Marshal(texts[i])
		plain = append(plain, m, texts[i])
		quoted = append(quoted, m, string(q[1:len(q)-1]))
	}
	inText, inYAML := strings.NewReplacer(plain...), strings.NewReplacer(quoted...)
	var out bytes.Buffer
	for _, line := range strings.Split(strings.TrimSpace(export), "\n") {
		dec := json.NewDecoder(strings.NewReader(line))
		dec.UseNumber()
		var rec map[string]any
		if err := dec.Decode(&rec); err != nil {
			t.Fatalf("export line %q: %v", line, err)
		}
		rec = replaceStrings(rec, inText).(map[string]any)
		if r, ok := rec["rule"].(map[string]any); ok {
			if st, ok := r["stated"].(map[string]any); ok {
				st["text"] = cutStated(st["text"].(string))
			}
		}
		if x, ok := rec["text"].(map[string]any); ok && rec["kind"] == "text" {
			x["sha256"] = digest([]byte(x["text"].(string)))
		}
		if reg, ok := rec["registry"].(map[string]any); ok {
			yaml, err := base64.StdEncoding.DecodeString(reg["yaml"].(string))
			if err != nil {
				t.Fatalf("registry record %q: %v", line, err)
			}
			yaml = []byte(inYAML.Replace(string(yaml)))
			reg["yaml"], reg["sha256"] = base64.StdEncoding.EncodeToString(yaml), digest(yaml)
		}
		b, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(append(b, '\n'))
	}
	return out.Bytes()
}

// cutStated cuts the words that stated a rule as the store does
// (engine.Rule.State).
func cutStated(text string) string {
	if len(text) <= engine.MaxStatedTextLength {
		return text
	}
	cut := engine.MaxStatedTextLength
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return text[:cut] + "…"
}

// replaceStrings applies r to every string of a decoded JSON value.
func replaceStrings(v any, r *strings.Replacer) any {
	switch x := v.(type) {
	case string:
		return r.Replace(x)
	case map[string]any:
		for k, e := range x {
			x[k] = replaceStrings(e, r)
		}
	case []any:
		for i, e := range x {
			x[i] = replaceStrings(e, r)
		}
	}
	return v
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
