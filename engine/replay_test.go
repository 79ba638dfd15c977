package engine

import (
	"strings"
	"testing"
	"time"
)

func min_(n int) time.Time { return t0.Add(time.Duration(n) * time.Minute) }

// TestReplayAcceptsRecordedHistories: histories the engine's own code
// records replay to their rule: corrections, a backfill before the
// creation, confirmations, a retraction (of the act that stated the
// rule, which withdraws the statement), a stated correction, a candidate
// proposed from a correction and merged, an exception proposal, a
// candidate promoted by a stated correction.
func TestReplayAcceptsRecordedHistories(t *testing.T) {
	for _, tc := range []struct {
		name string
		h    func() *history
	}{
		{"corrections", func() *history {
			return newHistory("tool.x", t0, false).correct(Reinforce, min_(1), "").correct(Counter, min_(2), "").correct(Reinforce, min_(3), "")
		}},
		{"a stated rule and a backfill dated before it", func() *history {
			return newHistory("tool.x", t0, true).correct(Reinforce, min_(-60), "").correct(Reinforce, min_(5), "")
		}},
		{"a confirmation and a violation", func() *history {
			h := newHistory("tool.x", t0, false).correct(Reinforce, min_(1), "")
			out, _ := Correct(h.r, Correction{RuleID: h.r.RuleID, Polarity: Counter, UserText: "no", At: min_(2), Confirmation: true}, h.cfg, noExceptions)
			h.r = out.Rule
			h.add(out.Event)
			h.add(Event{EventType: EventViolation, Alpha: h.r.Alpha, Beta: h.r.Beta, At: min_(3)})
			return h
		}},
		{"retractions, one of the act that stated it", func() *history {
			h := newHistory("tool.x", t0, false).correct(Reinforce, min_(1), "").correct(Reinforce, min_(2), StatedExplicit).correct(Counter, min_(3), "")
			return h.retract(3, min_(4)).retract(4, min_(5)).correct(Reinforce, min_(6), "")
		}},
		{"a stated correction", func() *history {
			return newHistory("tool.x", t0, false).correct(Counter, min_(1), "").correct(Reinforce, min_(2), StatedRemember)
		}},
		{"a candidate merged in, then one of its corrections retracted", func() *history {
			h := newHistory("tool.x", t0, false).correct(Reinforce, min_(1), "").mergeCandidate(min_(-5), 2, min_(10))
			return h.retract(5, min_(11))
		}},
		{"a candidate proposed from a correction, accepted by a stated correction", func() *history {
			h := &history{cfg: DefaultConfig(), retracted: map[int64]bool{}}
			h.r = NewCandidateRule("use ripgrep, not grep", "", Scope{}, h.cfg, t0)
			h.add(Event{EventType: EventCreation, UserText: "use ripgrep, not grep", Alpha: h.r.Alpha, Beta: h.r.Beta, At: t0})
			return h.correct(Reinforce, min_(1), StatedExplicit)
		}},
		{"an exception proposal", func() *history {
			h := &history{cfg: DefaultConfig(), retracted: map[int64]bool{}}
			h.r = NewRule("tool.x.in-legacy", CategoryToolPreference, SeverityMust, "Exception", Scope{}, h.cfg, t0)
			h.r.Alpha, h.r.Reinforcements, h.r.Status, h.r.ExceptionOf, h.r.ExceptionTag = 5, 3, StatusCandidate, "tool.x", "legacy"
			h.add(Event{EventType: EventCreation, Alpha: 5, Beta: 5, At: t0})
			return h
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := tc.h()
			p := NewReplay(h.r, ReplayOptions{Retracted: func(id int64) bool { return h.retracted[id] }, ParentCounterexamples: 3})
			for _, ev := range h.evs {
				if _, err := p.Step(ev); err != nil {
					t.Fatalf("%v\nrule %+v", err, h.r)
				}
			}
			if err := p.Finish(); err != nil {
				t.Fatalf("%v\nrule %+v", err, h.r)
			}
		})
	}
}

// TestReplayRefuses: each way an edited file makes a rule's evidence say
// more than its events (the holes of the review, first) is refused,
// naming the rule, the event and what does not follow.
func TestReplayRefuses(t *testing.T) {
	base := func() *history { return newHistory("tool.curl-sh", t0, false).correct(Reinforce, min_(1), "") }
	ev := func(h *history, i int) *Event { return &h.evs[i] }
	for _, tc := range []struct {
		name string
		edit func(h *history)
		msg  string
	}{
		{"alpha 1e9 from one reinforcement", func(h *history) { h.r.Alpha, ev(h, 1).Alpha = 1e9, 1e9 },
			"event #2 (event_id 2, a reinforcement): it adds 1 to alpha: from alpha 2 and beta 5 it gives alpha 3 and beta 5; it records alpha 1e+09"},
		{"alpha 1e300 from one reinforcement", func(h *history) { h.r.Alpha, ev(h, 1).Alpha = 1e300, 1e300 }, "it records alpha 1e+300"},
		{"alpha 2 to 1003 in one event", func(h *history) {
			h.correct(Reinforce, min_(2), "")
			h.r.Alpha, ev(h, 2).Alpha = 1003, 1003
			ev(h, 1).Alpha = 2
		}, "event #2 (event_id 2, a reinforcement): it adds 1 to alpha: from alpha 2 and beta 5 it gives alpha 3 and beta 5; it records alpha 2"},
		{"a counterexample that raises alpha", func(h *history) {
			h.correct(Counter, min_(2), "")
			h.r.Alpha, h.r.Beta, ev(h, 2).Alpha, ev(h, 2).Beta = 4, 5, 4, 5
		}, "a counterexample): it adds 1 to beta: from alpha 3 and beta 5 it gives alpha 3 and beta 6; it records alpha 4 and beta 5"},
		{"a violation that raises alpha", func(h *history) {
			h.add(Event{EventType: EventViolation, Alpha: 4, Beta: 5, At: min_(2)})
			h.r.Alpha = 4
		}, "a violation): it changes no evidence, so it records the rule's alpha 3 and beta 5 as they were; it records alpha 4 and beta 5"},
		{"1e12 reinforcements with one event", func(h *history) { h.r.Reinforcements = 1e12 },
			"rule tool.curl-sh has alpha 3, beta 5, 1000000000000 reinforcements and 0 counterexamples, but its 2 events, replayed from its prior, give alpha 3, beta 5, 1 and 0"},
		{"an event dated 1970, before first_seen", func(h *history) { ev(h, 1).At = time.Unix(0, 0) },
			"event #2 (event_id 2, a reinforcement): it is dated 1970-01-01T00:00:00Z, before the rule's first_seen 2025-11-22T12:00:00Z"},
		{"a first_seen before its creation", func(h *history) { ev(h, 0).At = min_(1) },
			"was first seen 2025-11-22T12:00:00Z and last corrected 2025-11-22T12:01:00Z, but its 2 events, replayed, give 2025-11-22T12:01:00Z and 2025-11-22T12:01:00Z"},
		{"100,000 candidates on one event", func(h *history) { ev(h, 1).Candidates = make([]Candidate, 100000) },
			"event #2 (event_id 2, a reinforcement): it lists 100000 candidates: at most 100"},
		{"a creation above the prior", func(h *history) { h.r.Alpha, ev(h, 0).Alpha, ev(h, 1).Alpha = 1e9+1, 1e9, 1e9+1 },
			"event #1 (event_id 1, a creation): a creation records the prior (alpha 2, beta 5)"},
		{"a reinforcement with the polarity -1", func(h *history) { ev(h, 1).Polarity = Counter },
			"a reinforcement has the polarity 1; it records -1"},
		{"a last correction no event made", func(h *history) { h.r.LastCorrection = min_(60) }, "last corrected 2025-11-22T13:00:00Z"},
		{"events out of order", func(h *history) { ev(h, 1).EventID = 1 }, "its event_id is not above the previous event's (1)"},
		{"a history that does not start with the creation", func(h *history) { h.evs = h.evs[1:] }, "a rule's history starts with its creation"},
		{"no events", func(h *history) { h.evs = nil }, "has no events: nothing explains its alpha 3 and beta 5"},
		{"a statement no event makes", func(h *history) { h.r.State(StatedRuleAdded, h.r.Text, min_(30)) },
			"is stated (rule added by the user, 2025-11-22T12:30:00Z, after 0 counterexamples), but no event of its history explains it"},
		{"a statement the retraction of its act withdrew", func(h *history) {
			h.correct(Reinforce, min_(2), StatedExplicit)
			stated := *h.r.Stated
			h.retract(3, min_(3))
			h.r.Stated = &stated
		}, "is stated (CORRECT[rule_id]: in a prompt"},
		{"a candidate active-eligible with no promotion", func(h *history) {
			h.r.Source, h.r.Status = SourceCorrection, StatusActiveEligible
			ev(h, 0).UserText, ev(h, 0).Alpha, ev(h, 1).Alpha, h.r.Alpha, h.r.Reinforcements = "use curl", 3, 4, 4, 2
		}, "is active-eligible, but it was created as a candidate and no promotion or manual_override of its history accepted it"},
		{"a retraction of an event never recorded", func(h *history) {
			h.add(Event{EventType: EventManualOverride, Detail: "retracted event 99 (a reinforcement recorded …): its evidence is taken back", Alpha: 2, Beta: 5, At: min_(3)})
			h.r.Alpha, h.r.Reinforcements = 2, 0
		}, "it retracts event 99, which is no earlier correction of this rule's history that is not retracted already"},
		{"a retraction that takes back more than the event held", func(h *history) {
			h.retract(2, min_(3))
			ev(h, 2).Alpha, h.r.Alpha = 1, 1
		}, "event #3 (event_id 3, a manual_override): it retracts event 2, reinforcement: from alpha 3 and beta 5 it gives alpha 2 and beta 5; it records alpha 1 and beta 5"},
		{"a retraction of an event retracted already", func(h *history) {
			h.correct(Reinforce, min_(2), "")
			h.retract(2, min_(3))
			h.add(Event{EventType: EventManualOverride, Detail: h.evs[3].Detail, Alpha: 2, Beta: 5, At: min_(4)})
			h.r.Alpha, h.r.Reinforcements = 2, 0
		}, "event #5 (event_id 5, a manual_override): it retracts event 2, which is no earlier correction of this rule's history that is not retracted already"},
		{"a merge of more than a candidate held", func(h *history) {
			h.mergeCandidate(min_(2), 1, min_(5))
			last := ev(h, len(h.evs)-1)
			last.Alpha += 100
			h.r.Alpha += 100
		}, "no history of a candidate created in this rule's history adds up to its alpha 105"},
		{"a second creation never merged", func(h *history) {
			h.add(Event{EventType: EventCreation, Alpha: 2, Beta: 5, At: min_(2)})
		}, "its event #3 (event_id 3) creates another rule, whose history no \"merged candidate\" event merges into it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := base()
			tc.edit(h)
			err := h.replay()
			if ErrorCode(err) != EINVALID || !strings.Contains(ErrorMessage(err), tc.msg) {
				t.Fatalf("error %v\nwant EINVALID saying %q", err, tc.msg)
			}
			if !strings.Contains(ErrorMessage(err), "tool.curl-sh") {
				t.Errorf("error %q does not name the rule", ErrorMessage(err))
			}
		})
	}
}

// TestReplayRetractionDetail: a retraction Retract writes names the event
// it retracts, and renumbering it names another.
func TestReplayRetractionDetail(t *testing.T) {
	r := ruleWith(CategoryToolPreference, SeverityShould, 2, 0, t0)
	ret, err := Retract(r, Event{EventID: 41, RuleID: r.RuleID, EventType: EventReinforcement, Polarity: Reinforce, At: t0}, t0, t0)
	if err != nil {
		t.Fatal(err)
	}
	if id, ok := RetractedEventID(ret.Event); !ok || id != 41 {
		t.Fatalf("RetractedEventID(%q) = %d, %v; want 41", ret.Event.Detail, id, ok)
	}
	ret.Event.Detail = RenumberRetraction(ret.Event, 7)
	if id, ok := RetractedEventID(ret.Event); !ok || id != 7 || !strings.HasPrefix(ret.Event.Detail, "retracted event 7 (a reinforcement recorded") {
		t.Errorf("renumbered: %q", ret.Event.Detail)
	}
	for _, d := range []string{"retracted event x (a …)", "edited: text", "retracted event -3 (…)"} {
		if _, ok := RetractedEventID(Event{EventType: EventManualOverride, Detail: d}); ok {
			t.Errorf("%q taken for a retraction", d)
		}
	}
}
