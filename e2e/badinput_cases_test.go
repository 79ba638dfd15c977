package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// SQL metacharacters, sent in every string field: each must be stored and
// echoed literally, or refused by validation — never executed.
const (
	sqlDrop   = `x'); DROP TABLE persona_rules; --`
	sqlOr     = `' OR '1'='1`
	sqlDelete = `"; DELETE FROM persona_events WHERE 1=1; --`
)

// The rule the rows correct, from the default registry.
const catRule = "tool.pnpm-not-npm"

const jsonCT = "application/json"

// badInputCases is the whole catalogue, HTTP rows first, then the CLI and
// MCP rows, then the registry rows (the last ones replace the registry).
func badInputCases(t *testing.T, h *catalogue) []badCase {
	var cases []badCase
	cases = append(cases, httpCases()...)
	cases = append(cases, httpSQLCases()...)
	cases = append(cases, cliCases(t, h)...)
	cases = append(cases, mcpCases()...)
	cases = append(cases, registryCases(t, h)...)
	return cases
}

// post is an HTTP row: POST path with a JSON body.
func post(name, path, body string, want int, msg string) badCase {
	return badCase{name: name, surface: viaHTTP, method: http.MethodPost, path: path, ctype: jsonCT, body: []byte(body), want: want, msg: msg}
}

// get is an HTTP row: GET path.
func get(name, path string, want int, msg string) badCase {
	return badCase{name: name, surface: viaHTTP, method: http.MethodGet, path: path, want: want, msg: msg}
}

// correction is a POST /v1/corrections body on catRule with extra fields.
func correction(extra string) string {
	return `{"text":"use pnpm","rule_id":"` + catRule + `"` + extra + `}`
}

func jsonString(s string) string {
	b := strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s)
	return `"` + b + `"`
}

func httpCases() []badCase {
	mb := strings.Repeat("a", 1_000_000)
	tooBig := strings.Repeat("a", 1<<20)
	chunked := post("huge chunked body", "/v1/corrections", `{"text":"`+strings.Repeat("b", 2<<20)+`"}`, 413, "1048576-byte limit")
	chunked.chunked = true
	noCT := post("no Content-Type", "/v1/corrections", correction(""), 400, "Content-Type header is missing")
	noCT.ctype = ""
	textPlain := post("text/plain body", "/v1/corrections", correction(""), 400, `Content-Type "text/plain" is not accepted`)
	textPlain.ctype = "text/plain"
	oneMB := post("1 MB text, stored whole", "/v1/corrections", `{"text":"`+mb+`","rule_id":"`+catRule+`"}`, 201, `"event_type":"reinforcement"`)
	oneMB.writes, oneMB.check = true, storedLiterally("user_text", mb)
	return []badCase{
		post("malformed JSON: cut short", "/v1/corrections", `{"text":"use pnpm","rule_id":`, 400, "ends too early"),
		post("malformed JSON: trailing comma", "/v1/corrections", `{"text":"x",}`, 400, "not valid JSON"),
		post("malformed JSON: two values", "/v1/corrections", correction("")+` {}`, 400, "data after the JSON value"),
		post("wrong type: text a number", "/v1/corrections", `{"text":5}`, 400, `field "text" is a JSON number: want a string`),
		post("wrong type: polarity a string", "/v1/corrections", correction(`,"polarity":"1"`), 400, `field "polarity" is a JSON string: want an integer`),
		post("wrong type: body an array", "/v1/corrections", `[]`, 400, "request body is a JSON array: want a JSON object"),
		post("wrong type: scope a string", "/v1/corrections", correction(`,"scope":"api"`), 400, `field "scope" is a JSON string`),
		post("unknown field", "/v1/corrections", `{"text":"x","rule":"`+catRule+`"}`, 400, `unknown field "rule"`),
		post("empty body", "/v1/corrections", ``, 400, "request body is empty"),
		noCT, textPlain,
		post("huge body", "/v1/corrections", `{"text":"`+strings.Repeat("b", 2<<20)+`"}`, 413, "the limit is 1048576 bytes"),
		chunked,
		post("invalid UTF-8", "/v1/corrections", "{\"text\":\"bad \xff byte\",\"rule_id\":\""+catRule+"\"}", 400, "not valid UTF-8"),
		post("empty text", "/v1/corrections", `{"text":"","rule_id":"`+catRule+`"}`, 400, `field "text" is required`),
		post("blank text", "/v1/corrections", `{"text":" \t\n ","rule_id":"`+catRule+`"}`, 400, "correction text is empty"),
		oneMB,
		post("1 MiB text: over the body limit", "/v1/corrections", `{"text":"`+tooBig+`","rule_id":"`+catRule+`"}`, 413, "the limit is 1048576 bytes"),
		post("unknown rule", "/v1/corrections", `{"text":"x","rule_id":"tool.nope"}`, 404, `rule "tool.nope" not found`),
		post("unknown rule via CORRECT[]", "/v1/corrections", `{"text":"CORRECT[tool.nope]: x"}`, 404, `"tool.nope"`),
		get("unknown rule history", "/v1/rules/tool.nope/history", 404, `rule "tool.nope" not found`),
		post("unknown confirmation", "/v1/confirmations/99999", `{"action":"accept"}`, 404, "confirmation 99999 not found"),
		post("odd scope tag: space", "/v1/corrections", correction(`,"scope":{"context_tags":["a b"]}`), 400, `context tag "a b" has characters that are not allowed`),
		post("odd scope tag: emoji", "/v1/classify", `{"text":"x","scope":{"context_tags":["🚀"]}}`, 400, `context tag "🚀"`),
		post("odd scope tag: 200 bytes", "/v1/corrections", correction(`,"scope":{"context_tags":["`+strings.Repeat("t", 200)+`"]}`), 400, "at most 128"),
		post("odd scope tag: leading dash", "/v1/corrections", correction(`,"scope":{"environment":"-work"}`), 400, `scope environment "-work"`),
		post("odd scope tag: control character", "/v1/corrections", correction(`,"scope":{"project":"api\u0000"}`), 400, "scope project"),
		get("odd scope tag in a query", "/v1/persona?context_tags=a%20b", 400, `context tag "a b"`),
		get("invalid UTF-8 in a query", "/v1/rules?category=%FF", 400, `query parameter "category" is not valid UTF-8`),
		get("history limit -1", "/v1/rules/"+catRule+"/history?limit=-1", 400, `limit="-1": want a whole number from 1 to 10000`),
		get("history limit 999999", "/v1/rules/"+catRule+"/history?limit=999999", 400, `limit="999999"`),
		get("rules limit 0", "/v1/rules?limit=0", 400, `limit="0"`),
		get("rules limit 1e9", "/v1/rules?limit=1000000000", 400, `limit="1000000000"`),
		get("confirmations limit -1", "/v1/confirmations?limit=-1", 400, `limit="-1"`),
		get("history after -5", "/v1/rules/"+catRule+"/history?after=-5", 400, `after="-5"`),
		get("persona max -1", "/v1/persona?max=-1", 400, `max="-1": want a whole number from 0 to 10000`),
		get("persona max 999999", "/v1/persona?max=999999", 400, `max="999999"`),
		get("persona max NaN", "/v1/persona?max=NaN", 400, `max="NaN"`),
		get("persona max +Inf", "/v1/persona?max=%2BInf", 400, `max="+Inf"`),
		post("polarity NaN", "/v1/corrections", correction(`,"polarity":NaN`), 400, "not valid JSON"),
		post("polarity Infinity", "/v1/corrections", correction(`,"polarity":Infinity`), 400, "not valid JSON"),
		post("polarity 1e309", "/v1/corrections", correction(`,"polarity":1e309`), 400, `field "polarity" is a JSON number 1e309: want an integer`),
		post("polarity 0.5", "/v1/corrections", correction(`,"polarity":0.5`), 400, `field "polarity" is a JSON number 0.5`),
		post("polarity 2", "/v1/corrections", correction(`,"polarity":2`), 400, "polarity 2: want 1 (reinforcement) or -1 (counterexample)"),
		post("embeddings dimensions NaN", "/v1/embeddings", `{"input":"x","dimensions":NaN}`, 400, "not valid JSON"),
		post("embeddings dimensions 1e400", "/v1/embeddings", `{"input":"x","dimensions":1e400}`, 400, `field "dimensions"`),
		post("embeddings no input", "/v1/embeddings", `{"input":[]}`, 400, `field "input" is an empty array`),
		get("query typo: projct=", "/v1/persona?projct=api", 400, `unknown query parameter "projct": this endpoint reads agent_family, context_tags, environment, format, include_dormant, max, now, project`),
		get("undocumented filter: state=", "/v1/rules?state=active", 400, `unknown query parameter "state"`),
		get("bad timestamp: now=yesterday", "/v1/persona?now=yesterday", 400, `now="yesterday" is not an RFC 3339 time`),
		get("bad timestamp: February 30", "/v1/why?now=2026-02-30T00:00:00Z", 400, `now="2026-02-30T00:00:00Z"`),
		get("bad timestamp: no zone", "/v1/rules?now=2026-03-01T12:00:00", 400, `now="2026-03-01T12:00:00"`),
		post("bad timestamp: at=yesterday", "/v1/corrections", correction(`,"at":"yesterday"`), 400, `field "at" = "yesterday" is not an RFC 3339 time`),
		post("future timestamp: at=2099", "/v1/corrections", correction(`,"at":"2099-01-01T00:00:00Z"`), 400, "correction time 2099-01-01T00:00:00Z is in the future"),
		post("bad confirmation action", "/v1/confirmations/1", `{"action":"maybe"}`, 400, `field "action" is maybe: want one of accept, reject, new`),
		{name: "bad confirmation id", surface: viaHTTP, method: http.MethodPost, path: "/v1/confirmations/abc", ctype: jsonCT, body: []byte(`{"action":"accept"}`), want: 400, msg: `confirmation id "abc"`},
		{name: "patch nothing", surface: viaHTTP, method: http.MethodPatch, path: "/v1/rules/" + catRule, ctype: jsonCT, body: []byte(`{}`), want: 400, msg: "nothing to update"},
		{name: "unknown route", surface: viaHTTP, method: http.MethodGet, path: "/v1/rulez", want: 404, msg: "no such endpoint"},
		{name: "wrong method", surface: viaHTTP, method: http.MethodDelete, path: "/v1/rules/" + catRule, want: 405, msg: "method not allowed"},
		{name: "blank Idempotency-Key", surface: viaHTTP, method: http.MethodPost, path: "/v1/corrections", ctype: jsonCT, body: []byte(correction("")),
			header: map[string]string{"Idempotency-Key": "  "}, want: 400, msg: "Idempotency-Key header is empty"},
	}
}

// httpSQLCases send SQL metacharacters in every string field of the API.
func httpSQLCases() []badCase {
	var cases []badCase
	for i, s := range []string{sqlDrop, sqlOr, sqlDelete} {
		q := strings.NewReplacer(" ", "%20", "'", "%27", `"`, "%22", ";", "%3B", "=", "%3D").Replace(s)
		n := func(field string) string { return fmt.Sprintf("SQL %d in %s", i+1, field) }
		text := post(n("text"), "/v1/corrections", `{"text":`+jsonString(s)+`,"rule_id":"`+catRule+`"}`, 201, `"event_type":"reinforcement"`)
		text.writes, text.check = true, storedLiterally("user_text", s)
		frame := post(n("frame_id"), "/v1/corrections", correction(`,"frame_id":`+jsonString(s)), 201, `"rule_id":"`+catRule+`"`)
		frame.writes, frame.check = true, storedLiterally("frame_id", s)
		agent := post(n("agent_output"), "/v1/corrections", correction(`,"agent_output":`+jsonString(s)), 201, `"rule_id":"`+catRule+`"`)
		agent.writes, agent.check = true, storedLiterally("agent_output", s)
		key := post(n("Idempotency-Key"), "/v1/corrections", correction(""), 201, `"rule_id":"`+catRule+`"`)
		key.header, key.writes = map[string]string{"Idempotency-Key": s}, true
		patch := badCase{name: n("PATCH topic"), surface: viaHTTP, method: http.MethodPatch, path: "/v1/rules/" + catRule, ctype: jsonCT,
			body: []byte(`{"topic":` + jsonString(s) + `}`), want: 400, msg: "topic"}
		cases = append(cases, text, frame, agent, key, patch,
			post(n("rule_id"), "/v1/corrections", `{"text":"x","rule_id":`+jsonString(s)+`}`, 400, "malformed rule id"),
			post(n("CORRECT[] rule id"), "/v1/corrections", `{"text":`+jsonString("CORRECT["+s+"]: x")+`}`, 400, "explicit correction"),
			post(n("scope project"), "/v1/corrections", correction(`,"scope":{"project":`+jsonString(s)+`}`), 400, "scope project"),
			post(n("scope agent_family"), "/v1/classify", `{"text":"x","scope":{"agent_family":`+jsonString(s)+`}}`, 400, "scope agent_family"),
			post(n("at"), "/v1/corrections", correction(`,"at":`+jsonString(s)), 400, `field "at"`),
			post(n("classify text"), "/v1/classify", `{"text":`+jsonString(s)+`}`, 200, `"decision"`),
			post(n("embeddings model"), "/v1/embeddings", `{"input":"x","model":`+jsonString(s)+`}`, 400, "is not served here"),
			get(n("category"), "/v1/rules?category="+q, 400, "malformed category"),
			get(n("status"), "/v1/rules?status="+q, 400, "unknown status"),
			get(n("after cursor"), "/v1/rules?limit=2&after="+q, 200, `"rules"`),
			get(n("persona project"), "/v1/persona?project="+q, 400, "scope project"),
			get(n("rule id in the path"), "/v1/rules/"+q, 400, "malformed rule id"),
		)
	}
	return cases
}
