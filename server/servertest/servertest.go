// Package servertest holds what tests of LexSona's front ends share
// (server, its review page, mcp): Memory, a fake of the use cases they
// declare, for the tests of a front end alone; and, for the tests of the
// whole, requests with a key and the decoding of common answers.
package servertest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// Client makes requests to the API at URL for test T.
type Client struct {
	T   testing.TB
	URL string
}

// Call makes one request with key (none when empty); body, when not empty,
// is sent as JSON; header lists extra header names and values in pairs. It
// returns the status and body, and fails the test when the request cannot
// be made.
func (c Client) Call(key, method, path, body string, header ...string) (int, string) {
	c.T.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, c.URL+path, rd)
	if err != nil {
		c.T.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.T.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// Must is Call that fails the test unless the status is want; it returns
// the body.
func (c Client) Must(want int, key, method, path, body string, header ...string) string {
	c.T.Helper()
	status, b := c.Call(key, method, path, body, header...)
	if status != want {
		c.T.Fatalf("%s %s: status %d, want %d; body %s", method, path, status, want, b)
	}
	return b
}

// RuleIDs are the ids of GET /v1/rules's answer.
func RuleIDs(tb testing.TB, body string) []string {
	tb.Helper()
	var l struct {
		Rules []struct {
			ID string `json:"rule_id"`
		} `json:"rules"`
	}
	if err := json.Unmarshal([]byte(body), &l); err != nil {
		tb.Fatalf("decoding rules %s: %v", body, err)
	}
	var ids []string
	for _, r := range l.Rules {
		ids = append(ids, r.ID)
	}
	return ids
}

// ActivatedOnce accepts n confirmations on one rule, one by one, with
// accept, which returns the answer to one accept; it fails the test unless
// exactly one answer says "activated": true, and that one says the rule is
// active.
func ActivatedOnce(tb testing.TB, n int, accept func() map[string]any) {
	tb.Helper()
	activated := 0
	for i := 1; i <= n; i++ {
		m := accept()
		if m["activated"] == true {
			if activated != 0 || m["active"] != true {
				tb.Fatalf("accept %d: %v (activated before, at %d, or not active)", i, m, activated)
			}
			activated = i
		}
	}
	if activated == 0 {
		tb.Fatalf("no accept said the rule was activated")
	}
}
