package e2e

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"testing"
	"time"

	_ "modernc.org/sqlite" // the driver the store uses, opened read-only here
)

// Client calls the HTTP API of one server.
type Client struct {
	Base string
	Key  string // sent as Authorization: Bearer KEY when set
	HC   *http.Client
}

// NewClient returns a client with a connection pool of conns.
func NewClient(base string, conns int) *Client {
	tr := &http.Transport{MaxIdleConns: conns, MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns, IdleConnTimeout: 30 * time.Second}
	return &Client{Base: base, HC: &http.Client{Transport: tr, Timeout: 60 * time.Second}}
}

// Response is a status, headers and body.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Do sends one request. A body is sent with Content-Type ctype (none when
// ctype is ""); header adds or (with "") removes headers.
func (c *Client) Do(method, path, ctype string, body []byte, header map[string]string) (Response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, c.Base+path, rd)
	if err != nil {
		return Response{}, err
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if c.Key != "" {
		req.Header.Set("Authorization", "Bearer "+c.Key)
	}
	for k, v := range header {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := c.HC.Do(req)
	if err != nil {
		return Response{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return Response{Status: resp.StatusCode, Header: resp.Header, Body: b}, err
}

// MustDo is Do that fails the test on a transport error.
func (c *Client) MustDo(tb testing.TB, method, path, ctype string, body []byte) Response {
	tb.Helper()
	r, err := c.Do(method, path, ctype, body, nil)
	if err != nil {
		tb.Fatalf("%s %s: %v", method, path, err)
	}
	return r
}

// MustJSON sends v as JSON and decodes a wantStatus answer into out (when
// not nil); any other status fails the test.
func (c *Client) MustJSON(tb testing.TB, method, path string, v any, wantStatus int, out any) {
	tb.Helper()
	var body []byte
	if v != nil {
		var err error
		if body, err = json.Marshal(v); err != nil {
			tb.Fatal(err)
		}
	}
	ctype := ""
	if body != nil {
		ctype = "application/json"
	}
	r := c.MustDo(tb, method, path, ctype, body)
	if r.Status != wantStatus {
		tb.Fatalf("%s %s: status %d, want %d; body %s", method, path, r.Status, wantStatus, clipBody(r.Body))
	}
	if out != nil {
		if err := json.Unmarshal(r.Body, out); err != nil {
			tb.Fatalf("%s %s: decoding %s: %v", method, path, clipBody(r.Body), err)
		}
	}
}

// RuleEvidence is the part of a rule view the tests compare.
type RuleEvidence struct {
	RuleID          string  `json:"rule_id"`
	Alpha           float64 `json:"alpha"`
	Beta            float64 `json:"beta"`
	Reinforcements  int     `json:"reinforcements"`
	CounterExamples int     `json:"counter_examples"`
}

// MustRule reads GET /v1/rules/{id}.
func (c *Client) MustRule(tb testing.TB, id string) RuleEvidence {
	tb.Helper()
	var r RuleEvidence
	c.MustJSON(tb, http.MethodGet, "/v1/rules/"+url.PathEscape(id), nil, http.StatusOK, &r)
	return r
}

// ErrorBody is the API's error shape.
type ErrorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func clipBody(b []byte) string {
	if len(b) > 400 {
		return fmt.Sprintf("%s… (%d bytes)", b[:400], len(b))
	}
	return string(b)
}

// MustOpenReadOnly opens the SQLite file at path read-only with the same
// driver as the store (modernc.org/sqlite), for checks made beside a
// running (or killed) server. It is closed at the end of the test.
func MustOpenReadOnly(tb testing.TB, path string) *sql.DB {
	tb.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		tb.Fatalf("opening %s read-only: %v", path, err)
	}
	db.SetMaxOpenConns(1)
	tb.Cleanup(func() { db.Close() })
	return db
}

// Digest summarises what a database holds, to show that a request wrote
// nothing: row counts, the evidence sums, the last event and the tables.
type Digest struct {
	Rules, Events, Pending, Texts, Embeddings, Config, IdempotencyKeys int64
	SumAlpha, SumBeta                                                  float64
	LastEvent                                                          int64
	Tables                                                             string
}

// MustDigest reads the Digest of the database at path.
func MustDigest(tb testing.TB, path string) Digest {
	tb.Helper()
	db := MustOpenReadOnly(tb, path)
	defer db.Close()
	var d Digest
	err := db.QueryRow(`SELECT
		(SELECT count(*) FROM persona_rules), (SELECT count(*) FROM persona_events),
		(SELECT count(*) FROM pending_confirmations), (SELECT count(*) FROM rule_texts),
		(SELECT count(*) FROM persona_embeddings), (SELECT count(*) FROM persona_config),
		(SELECT count(*) FROM idempotency_keys),
		(SELECT total(alpha) FROM persona_rules), (SELECT total(beta) FROM persona_rules),
		(SELECT coalesce(max(event_id), 0) FROM persona_events),
		(SELECT group_concat(name, ',') FROM (SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name))`).
		Scan(&d.Rules, &d.Events, &d.Pending, &d.Texts, &d.Embeddings, &d.Config, &d.IdempotencyKeys,
			&d.SumAlpha, &d.SumBeta, &d.LastEvent, &d.Tables)
	if err != nil {
		tb.Fatalf("digest of %s: %v (were tables dropped?)", path, err)
	}
	return d
}

// MustIntegrityOK runs PRAGMA integrity_check on db and fails unless it
// answers the single row "ok".
func MustIntegrityOK(tb testing.TB, db *sql.DB) {
	tb.Helper()
	rows, err := db.Query("PRAGMA integrity_check")
	if err != nil {
		tb.Fatalf("PRAGMA integrity_check: %v", err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			tb.Fatal(err)
		}
		got = append(got, s)
	}
	if err := rows.Err(); err != nil {
		tb.Fatalf("PRAGMA integrity_check: %v", err)
	}
	if len(got) != 1 || got[0] != "ok" {
		tb.Fatalf("PRAGMA integrity_check = %q, want [ok]", got)
	}
}
