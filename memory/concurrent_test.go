package memory

import (
	"sync"
	"testing"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
)

// TestConcurrentRecord: classifications share the index while corrections
// are recorded and propose new rules (run with -race); afterwards each
// correction matches the rule it proposed.
func TestConcurrentRecord(t *testing.T) {
	s, _ := MustDefaultService(t, Options{})
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	created := map[string]string{} // text → proposed rule id, written by goroutine 0 only
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 10 {
				if _, err := s.Classify(t.Context(), "stop editing files with sed", engine.Scope{}); err != nil {
					errs <- err
				}
				if i == 0 && j%3 == 0 {
					text := "brand new preference number " + string(rune('a'+j)) + " about quokkas"
					resp, _, err := s.Record(t.Context(), engine.Correction{UserText: text})
					if err != nil {
						errs <- err
						continue
					}
					if resp.CreatedRule != nil {
						created[text] = resp.CreatedRule.RuleID
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if len(created) == 0 {
		t.Fatal("no correction proposed a rule")
	}
	for text, id := range created {
		r, err := s.Classify(t.Context(), text, engine.Scope{})
		if err != nil || len(r.Candidates) == 0 || r.Candidates[0].RuleID != id || r.Decision == classifier.DecisionNewRule {
			t.Errorf("%q: %+v, %v; want its proposed rule %s on top", text, r, err, id)
		}
	}
}
