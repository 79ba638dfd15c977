package engine

import (
	"time"
	"unicode/utf8"
)

// Statement is the receipt of an explicit act that put a rule in force at
// once, without the evidence the Bayesian activation asks for: a rule the
// user added, a candidate or inbox suggestion the user accepted, a
// CORRECT[rule_id]: or "remember: …" prompt. By says which act (one of the
// Stated* names), At when, Text from what words (at most
// MaxStatedTextLength bytes of them).
type Statement struct {
	At   time.Time `json:"at"`
	By   string    `json:"by"`
	Text string    `json:"text,omitempty"`
	// CounterBase is the rule's counterexample count when it was stated:
	// the counterexamples recorded since are CounterExamples − CounterBase.
	CounterBase int `json:"counter_base"`
}

// The explicit acts a Statement names.
const (
	StatedRuleAdded       = "rule added by the user"
	StatedCandidateAccept = "candidate accepted by the user"
	StatedSuggestion      = "suggestion accepted by the user"
	StatedExplicit        = "CORRECT[rule_id]: in a prompt"
	StatedRemember        = "remember: in a prompt"
	StatedRecorded        = "recorded with the rule named"
)

// MaxStatedTextLength bounds the words a Statement keeps.
const MaxStatedTextLength = 500

// State records the explicit act by at at, with its words text (cut to
// MaxStatedTextLength bytes at a character boundary): the rule is in force
// from now on (see StatedInForce).
func (r *Rule) State(by, text string, at time.Time) {
	if len(text) > MaxStatedTextLength {
		cut := MaxStatedTextLength
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut] + "…"
	}
	r.Stated = &Statement{At: at, By: by, Text: text, CounterBase: r.CounterExamples}
}

// Unstate withdraws the rule's statement: an explicit contradiction, or a
// retraction of the act. Its evidence decides again.
func (r *Rule) Unstate() { r.Stated = nil }

// StatedInForce reports whether r's statement keeps it in force under cfg:
// r has one, cfg.ExplicitWeight is above 0, and fewer than
// cfg.ExplicitWeight counterexamples were recorded on r since it was
// stated. Past that, the implicit evidence against the rule outweighs the
// statement and the Bayesian activation decides alone.
func StatedInForce(r *Rule, cfg Config) bool {
	if r.Stated == nil || cfg.ExplicitWeight <= 0 {
		return false
	}
	return r.CounterExamples-r.Stated.CounterBase < cfg.ExplicitWeight
}
