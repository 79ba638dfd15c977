package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/lexsona/lexsona/server/servertest"
)

// openAPI is the parsed document, loaded once.
var openAPI = sync.OnceValues(func() (map[string]any, error) {
	var doc map[string]any
	err := json.Unmarshal(openAPIDoc, &doc)
	return doc, err
})

func mustDoc(tb testing.TB) map[string]any {
	tb.Helper()
	doc, err := openAPI()
	if err != nil {
		tb.Fatalf("openapi.json is not JSON: %v", err)
	}
	return doc
}

// inlineRefs replaces every {"$ref": "#/components/schemas/X"} with X
// (recursively), so a schema validates on its own.
func inlineRefs(doc map[string]any, v any, depth int) (any, error) {
	if depth > 32 {
		return nil, fmt.Errorf("$ref nesting too deep (a cycle?)")
	}
	switch x := v.(type) {
	case map[string]any:
		if r, ok := x["$ref"].(string); ok {
			name, ok := strings.CutPrefix(r, "#/components/schemas/")
			if !ok {
				return nil, fmt.Errorf("unsupported $ref %q", r)
			}
			target, ok := doc["components"].(map[string]any)["schemas"].(map[string]any)[name]
			if !ok {
				return nil, fmt.Errorf("$ref %q names no schema", r)
			}
			return inlineRefs(doc, target, depth+1)
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			ie, err := inlineRefs(doc, e, depth)
			if err != nil {
				return nil, err
			}
			out[k] = ie
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			ie, err := inlineRefs(doc, e, depth)
			if err != nil {
				return nil, err
			}
			out[i] = ie
		}
		return out, nil
	}
	return v, nil
}

// compileSchema turns a document schema into a resolved JSON Schema.
func compileSchema(doc map[string]any, schema any) (*jsonschema.Resolved, error) {
	inl, err := inlineRefs(doc, schema, 0)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(inl)
	if err != nil {
		return nil, err
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("not a JSON Schema: %w", err)
	}
	return s.Resolve(nil)
}

// validateAgainst checks instance (JSON bytes) against a document schema.
func validateAgainst(doc map[string]any, schema any, instance []byte) error {
	rs, err := compileSchema(doc, schema)
	if err != nil {
		return err
	}
	var v any
	if err := json.Unmarshal(instance, &v); err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return rs.Validate(v)
}

// echoToOpenAPI turns /v1/rules/:id into /v1/rules/{id}.
func echoToOpenAPI(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		if strings.HasPrefix(s, ":") {
			parts[i] = "{" + s[1:] + "}"
		}
	}
	return strings.Join(parts, "/")
}

func TestOpenAPICoversEveryRoute(t *testing.T) {
	e, _ := newFakeEnv(t, nil, &servertest.Memory{}, nil)
	doc := mustDoc(t)
	paths := doc["paths"].(map[string]any)
	seen := map[string]bool{}
	for _, r := range e.srv.echo.Routes() {
		p := echoToOpenAPI(r.Path)
		seen[strings.ToLower(r.Method)+" "+p] = true
		item, ok := paths[p].(map[string]any)
		if !ok {
			t.Errorf("route %s %s: path %s is not in openapi.json", r.Method, r.Path, p)
			continue
		}
		if _, ok := item[strings.ToLower(r.Method)]; !ok {
			t.Errorf("route %s %s: openapi.json has no %s operation on %s", r.Method, r.Path, strings.ToLower(r.Method), p)
		}
	}
	// And the other way round: the document describes no route that does not exist.
	for p, item := range paths {
		for m := range item.(map[string]any) {
			if m == "parameters" {
				continue
			}
			if !seen[m+" "+p] {
				t.Errorf("openapi.json describes %s %s, which is not a route", strings.ToUpper(m), p)
			}
		}
	}
}

// docExample is one example found in the document, with its schema.
type docExample struct {
	where  string
	schema any
	value  any
}

func collectExamples(doc map[string]any) []docExample {
	var out []docExample
	addContent := func(where string, content any) {
		cm, _ := content.(map[string]any)
		for mt, m := range cm {
			media := m.(map[string]any)
			if ex, ok := media["example"]; ok {
				out = append(out, docExample{where + " " + mt, media["schema"], ex})
			}
			if exs, ok := media["examples"].(map[string]any); ok {
				for name, e := range exs {
					out = append(out, docExample{where + " " + mt + " " + name, media["schema"], e.(map[string]any)["value"]})
				}
			}
		}
	}
	for p, item := range doc["paths"].(map[string]any) {
		for m, op := range item.(map[string]any) {
			o, ok := op.(map[string]any)
			if !ok {
				continue
			}
			where := strings.ToUpper(m) + " " + p
			if rb, ok := o["requestBody"].(map[string]any); ok {
				addContent(where+" request", rb["content"])
			}
			for code, r := range o["responses"].(map[string]any) {
				addContent(where+" "+code, r.(map[string]any)["content"])
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].where < out[j].where })
	return out
}

func TestOpenAPIExamplesValidate(t *testing.T) {
	doc := mustDoc(t)
	if v := doc["openapi"]; v != "3.1.0" {
		t.Errorf("openapi = %v, want 3.1.0", v)
	}
	exs := collectExamples(doc)
	if len(exs) < 30 {
		t.Fatalf("only %d examples in openapi.json", len(exs))
	}
	for _, ex := range exs {
		b, _ := json.Marshal(ex.value)
		if err := validateAgainst(doc, ex.schema, b); err != nil {
			t.Errorf("%s: example does not validate: %v\n%s", ex.where, err, b)
		}
	}
	// Every component schema compiles on its own.
	for name, s := range doc["components"].(map[string]any)["schemas"].(map[string]any) {
		if _, err := compileSchema(doc, s); err != nil {
			t.Errorf("components.schemas.%s: %v", name, err)
		}
	}
}

// checkDoc validates a real JSON response against the document's schema for
// its route, method and status, so the document cannot drift from the code.
func checkDoc(tb testing.TB, method, route string, r response) {
	tb.Helper()
	doc := mustDoc(tb)
	op, ok := doc["paths"].(map[string]any)[route].(map[string]any)[strings.ToLower(method)].(map[string]any)
	if !ok {
		tb.Fatalf("openapi.json has no %s %s", method, route)
	}
	resp, ok := op["responses"].(map[string]any)[fmt.Sprint(r.status)].(map[string]any)
	if !ok {
		tb.Errorf("openapi.json: %s %s does not document status %d (body %s)", method, route, r.status, r.body)
		return
	}
	ct := r.header.Get("Content-Type")
	if !strings.HasPrefix(ct, "application/json") {
		return
	}
	media, ok := resp["content"].(map[string]any)["application/json"].(map[string]any)
	if !ok {
		tb.Errorf("openapi.json: %s %s %d has no application/json content", method, route, r.status)
		return
	}
	if err := validateAgainst(doc, media["schema"], r.body); err != nil {
		tb.Errorf("%s %s %d: the response does not match openapi.json: %v\n%.2000s", method, route, r.status, err, r.body)
	}
}

func TestOpenAPIServed(t *testing.T) {
	e, _ := newFakeEnv(t, nil, &servertest.Memory{}, nil)
	r := e.get("/openapi.json")
	mustStatus(t, r, http.StatusOK)
	var doc map[string]any
	r.json(t, &doc)
	if doc["openapi"] != "3.1.0" {
		t.Errorf("served document: openapi = %v", doc["openapi"])
	}
}

// TestOpenAPIQueryParameters: every GET route that takes query parameters
// accepts every one its operation documents (a valid value of each, all at
// once), and refuses one it does not document, naming it.
func TestOpenAPIQueryParameters(t *testing.T) {
	e, _ := newFakeEnv(t, nil, &servertest.Memory{}, nil)
	values := map[string]string{"environment": "work", "project": "api", "agent_family": "claude",
		"context_tags": "cli", "category": "tool_preference", "after": ""}
	for path, item := range mustDoc(t)["paths"].(map[string]any) {
		op, ok := item.(map[string]any)["get"].(map[string]any)
		if !ok {
			continue
		}
		q := url.Values{}
		params, _ := op["parameters"].([]any)
		for _, p := range params {
			p := p.(map[string]any)
			if p["in"] != "query" {
				continue
			}
			name, schema := p["name"].(string), p["schema"].(map[string]any)
			switch v, ok := values[name]; {
			case schema["type"] == "integer":
				q.Set(name, fmt.Sprint(max(1, schema["minimum"].(float64))))
			case ok:
				q.Set(name, v)
			case schema["enum"] != nil:
				q.Set(name, fmt.Sprint(schema["enum"].([]any)[0]))
			case schema["format"] == "date-time":
				q.Set(name, "2026-01-01T00:00:00Z")
			case schema["type"] == "boolean":
				q.Set(name, "false")
			default:
				t.Fatalf("GET %s: no test value for query parameter %s", path, name)
			}
		}
		if len(q) == 0 {
			continue // probes, metrics and the document itself ignore query strings
		}
		target := strings.ReplaceAll(path, "{id}", ruleSed)
		if r := e.get(target + "?" + q.Encode()); r.status != http.StatusOK {
			t.Errorf("GET %s?%s: %d %s", target, q.Encode(), r.status, r.body)
		}
		q.Set("colour", "red")
		r := e.get(target + "?" + q.Encode())
		if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), `unknown query parameter \"colour\"`) {
			t.Errorf("GET %s with an undocumented parameter: %d %s", target, r.status, r.body)
		}
	}
}

// TestOpenAPISecurityAndLicense: every operation says whether it needs a key
// (Redocly's security-defined rule) and the document names its license.
func TestOpenAPISecurityAndLicense(t *testing.T) {
	doc := mustDoc(t)
	if lic, _ := doc["info"].(map[string]any)["license"].(map[string]any); lic["name"] == nil {
		t.Errorf("info.license is missing")
	}
	for p, item := range doc["paths"].(map[string]any) {
		for m, op := range item.(map[string]any) {
			if o, ok := op.(map[string]any); ok && o["security"] == nil {
				t.Errorf("%s %s has no security", strings.ToUpper(m), p)
			}
		}
	}
}
