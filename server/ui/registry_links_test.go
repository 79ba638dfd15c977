package ui_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/server"
)

var rowIDs = regexp.MustCompile(`data-testid="rule-row" data-id="([^"]+)"`)

// TestRegistryNamesAreLinks: a registry's name links to its row on the
// registry page (from a rule's page and the rules list), and that row's
// name to the list of the registry's rules, which holds no other rule.
func TestRegistryNamesAreLinks(t *testing.T) {
	b := newEnv(t, server.APIKeys{}, false).browser(http.DefaultClient)
	if st := b.api("POST", "/v1/rules", "", `{"rule_id":"user.own","category":"code_style","text":"Keep my own rule"}`, nil); st != http.StatusCreated {
		t.Fatalf("adding a rule: %d", st)
	}
	for _, path := range []string{"/rules/tool.use-ripgrep", "/rules"} {
		if p := b.get(path); !strings.Contains(p.body, `<a href="/registry#registry-default" data-testid="registry-link">default</a>`) {
			t.Errorf("%s does not link registry default to its row", path)
		}
	}
	reg := b.get("/registry")
	for _, want := range []string{`id="registry-default"`, `<a href="/rules?registry=default" data-testid="registry-rules"><b>default</b></a>`} {
		if !strings.Contains(reg.body, want) {
			t.Errorf("the registry page lacks %s", want)
		}
	}
	list := b.get("/rules?registry=default")
	ids := rowIDs.FindAllStringSubmatch(list.body, -1)
	if list.status != http.StatusOK || len(ids) == 0 {
		t.Fatalf("/rules?registry=default: %d, %d rows", list.status, len(ids))
	}
	for _, m := range ids {
		if m[1] == "user.own" {
			t.Errorf("the registry's rules list holds the user's own rule")
		}
	}
	if !strings.Contains(list.body, `data-testid="registry-filter"`) || !strings.Contains(list.body, `name="registry" value="default"`) {
		t.Errorf("the list does not say, nor keep, that it shows registry default only")
	}
}
