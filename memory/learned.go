package memory

import (
	"context"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/redact"
	"github.com/lexsona/lexsona/store"
)

// Bounds of the learned-recently view.
const (
	DefaultLearnedLimit = 100
	MaxLearnedLimit     = 1000
	// CaptureLogKeep is how many captured prompts the capture log keeps.
	CaptureLogKeep = 1000
	// captureExcerptBytes bounds the prose a capture log entry keeps.
	captureExcerptBytes = 160
)

// Learned is what LexSona learned recently: the evidence recorded (each
// event with its rule's text and whether it was retracted), the
// suggestions waiting in the inbox, and what the hooks captured and what
// each became — ignored ones with the gate's verdict.
type Learned struct {
	Since       time.Time            `json:"since"`
	Events      []LearnedEvent       `json:"events"`
	Suggestions []engine.Pending     `json:"suggestions"`
	Captures    []store.CaptureEntry `json:"captures"`
}

// LearnedEvent is one recorded event and the text of its rule.
type LearnedEvent struct {
	store.EventRow
	RuleText string `json:"rule_text,omitempty"`
}

// Learned lists what was learned at or after since (newest first, at most
// limit of each kind; 0 means DefaultLearnedLimit). Errors: EINVALID for a
// limit out of 0…MaxLearnedLimit; the store's.
func (s *Service) Learned(ctx context.Context, since time.Time, limit int) (Learned, error) {
	if limit == 0 {
		limit = DefaultLearnedLimit
	}
	if limit < 0 || limit > MaxLearnedLimit {
		return Learned{}, engine.Errorf(engine.EINVALID, "limit %d: want 1 to %d", limit, MaxLearnedLimit)
	}
	out := Learned{Since: since.UTC(), Events: []LearnedEvent{}, Suggestions: []engine.Pending{}}
	evs, err := s.db.EventsSince(ctx, since, limit)
	if err != nil {
		return Learned{}, err
	}
	texts := map[string]string{}
	for _, e := range evs {
		if _, ok := texts[e.RuleID]; !ok {
			if r, err := s.db.GetRule(ctx, e.RuleID); err == nil {
				texts[e.RuleID] = r.Text
			}
		}
		out.Events = append(out.Events, LearnedEvent{EventRow: e, RuleText: texts[e.RuleID]})
	}
	ps, err := s.db.ListPending(ctx, engine.PendingOpen, MaxPendingLimit)
	if err != nil {
		return Learned{}, err
	}
	for i := len(ps) - 1; i >= 0 && len(out.Suggestions) < limit; i-- {
		if last := lastSeen(ps[i]); !last.Before(since) {
			out.Suggestions = append(out.Suggestions, ps[i])
		}
	}
	if out.Captures, err = s.db.CapturesSince(ctx, since, limit); err != nil {
		return Learned{}, err
	}
	if out.Captures == nil {
		out.Captures = []store.CaptureEntry{}
	}
	return out, nil
}

func lastSeen(p engine.Pending) time.Time {
	if p.LastSeenAt != nil {
		return *p.LastSeenAt
	}
	return p.CreatedAt
}

// logCapture records what Capture did with a prompt in the capture log
// (see Learned), keeping CaptureLogKeep entries: an excerpt of its prose,
// never a paste. A failure to log is not the capture's: it is dropped.
func (s *Service) logCapture(ctx context.Context, c engine.Correction, prose string, resp CaptureResponse) {
	redact.Strings(&prose)
	e := store.CaptureEntry{At: s.at(c.At), FrameID: c.FrameID, Action: resp.Action, Reason: resp.Reason,
		Excerpt: engine.CutAtRune(engine.OneLine(prose), captureExcerptBytes)}
	if resp.Gate != nil && resp.Gate.Gate != "explicit" {
		p := resp.Gate.Prob
		e.Gate = &p
	}
	if e.Excerpt == "" {
		e.Excerpt = "(pasted log or code only)"
	}
	if r := resp.RecordResponse; r != nil {
		e.PendingID = r.PendingID
		if r.RecordResult != nil {
			e.RuleID, e.EventID = r.RuleID, r.EventID
		} else if len(r.Candidates) > 0 {
			e.RuleID = r.Candidates[0].RuleID
		}
	}
	_ = s.db.Write(ctx, s.Now(), func(tx *store.Tx) error { return tx.LogCapture(e, CaptureLogKeep) })
}
