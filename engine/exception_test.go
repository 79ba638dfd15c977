package engine

import (
	"slices"
	"testing"
)

// tagCounts counts the context tags of counterexamples in scopes, as a
// store keeps them.
func tagCounts(scopes []Scope) map[string]int {
	counts := map[string]int{}
	for _, s := range scopes {
		for _, tag := range s.ContextTags {
			counts[tag]++
		}
	}
	return counts
}

func TestDetectExceptionPatternCounts(t *testing.T) {
	cfg := DefaultConfig()
	parent := mustRule(t, "tool.no-sed", CategoryToolPreference, SeverityMust, Scope{Project: "api"}, "file-editing", 12, t0)
	mig := Scope{Project: "api", ContextTags: []string{"migration", "sql"}}
	other := Scope{Project: "api", ContextTags: []string{"cli"}}
	tests := []struct {
		name    string
		scopes  []Scope
		skip    map[string]bool
		wantTag string
		count   int
	}{
		{"two are not a pattern", []Scope{mig, mig, other}, nil, "", 0},
		{"three sharing migration", []Scope{mig, mig, other, mig}, nil, "migration", 3},
		{"tie broken alphabetically: migration before sql", []Scope{mig, mig, mig}, nil, "migration", 3},
		{"already proposed tags are skipped", []Scope{mig, mig, mig}, map[string]bool{"migration": true}, "sql", 3},
		{"no tags, no pattern", []Scope{{}, {}, {}, {}}, nil, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := DetectExceptionPatternCounts(&parent, tagCounts(tt.scopes), tt.skip, cfg, t0)
			if tt.wantTag == "" {
				if p != nil {
					t.Fatalf("proposed %+v", p)
				}
				return
			}
			if p == nil || p.Tag != tt.wantTag || p.Count != tt.count {
				t.Fatalf("proposal %+v, want tag %s count %d", p, tt.wantTag, tt.count)
			}
			r := p.Rule
			if r.Status != StatusCandidate || r.ExceptionOf != parent.RuleID || !slices.Contains(r.Scope.ContextTags, tt.wantTag) || r.Scope.Project != "api" {
				t.Errorf("exception rule %+v", r)
			}
			if err := r.Validate(); err != nil {
				t.Errorf("exception rule invalid: %v", err)
			}
			if r.Alpha != cfg.AlphaPrior+float64(tt.count) || r.Reinforcements != tt.count {
				t.Errorf("exception evidence alpha %g reinforcements %d", r.Alpha, r.Reinforcements)
			}
		})
	}
}

func TestAcceptException(t *testing.T) {
	cfg := DefaultConfig()
	parent := mustRule(t, "tool.no-sed", CategoryToolPreference, SeverityMust, Scope{}, "", 12, t0)
	mig := Scope{ContextTags: []string{"migration"}}
	p := DetectExceptionPatternCounts(&parent, tagCounts([]Scope{mig, mig, mig}), nil, cfg, t0)
	exc := p.Rule
	if err := AcceptException(&parent, &exc); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(parent.Scope.ExcludeTags, []string{"migration"}) || exc.Status != StatusActiveEligible {
		t.Fatalf("parent %+v exc %+v", parent.Scope, exc.Status)
	}
	// The original no longer applies in migration contexts; the exception does.
	req := Scope{ContextTags: []string{"migration"}}
	if parent.Scope.Matches(req) || !exc.Scope.Matches(req) {
		t.Error("scopes after acceptance are wrong")
	}
	if err := AcceptException(&parent, &exc); ErrorCode(err) != ECONFLICT {
		t.Errorf("accepting twice: %v", err)
	}
	other := mustRule(t, "x.y", "general", SeverityShould, Scope{}, "", 0, t0)
	if err := AcceptException(&other, &exc); ErrorCode(err) != EINVALID {
		t.Errorf("accepting for the wrong parent: %v", err)
	}
}
