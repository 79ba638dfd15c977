package engine

import (
	"time"
	"unicode/utf8"
)

// EventType names what an event did to a rule.
type EventType string

// Event types of the append-only receipt trail. A promotion records that a
// candidate became active-eligible by itself (PromoteCandidate), in the same
// transaction as the correction that took it over its thresholds; a
// violation records that an agent did what a rule forbids (an enforced check
// matched). Neither adds evidence.
const (
	EventCreation       EventType = "creation"
	EventReinforcement  EventType = "reinforcement"
	EventCounterexample EventType = "counterexample"
	EventManualOverride EventType = "manual_override"
	EventConfirmation   EventType = "confirmation"
	EventPromotion      EventType = "promotion"
	EventViolation      EventType = "violation"
)

// Polarity is +1 for a reinforcement and −1 for a counterexample.
type Polarity int

// The two polarities.
const (
	Reinforce Polarity = 1
	Counter   Polarity = -1
)

// ParsePolarity accepts 1 and −1 (0 means the default, 1) and returns an
// EINVALID error for anything else (Check's).
func ParsePolarity(p int) (Polarity, error) {
	if p == 0 {
		return Reinforce, nil
	}
	if err := Polarity(p).Check(); err != nil {
		return 0, err
	}
	return Polarity(p), nil
}

// Check reports an EINVALID error naming p unless it is 1 or −1.
func (p Polarity) Check() error {
	if p != Reinforce && p != Counter {
		return Errorf(EINVALID, "polarity %d: want 1 (reinforcement) or -1 (counterexample)", p)
	}
	return nil
}

// MaxFrameIDLength bounds a frame (session) id, in bytes.
const MaxFrameIDLength = 256

// ValidateFrameID reports an EINVALID error unless id (a frame or session
// id, "" for none) is at most MaxFrameIDLength bytes on one line
// (ValidateLine).
func ValidateFrameID(id string) error {
	if len(id) > MaxFrameIDLength {
		return Errorf(EINVALID, "frame id is %d bytes long: at most %d", len(id), MaxFrameIDLength)
	}
	return ValidateLine("frame id", id)
}

// EventType is the event a correction of this polarity records (a
// confirmed one records EventConfirmation; see Correction.Confirmation).
func (p Polarity) EventType() EventType {
	if p == Counter {
		return EventCounterexample
	}
	return EventReinforcement
}

// Candidate is one rule the classifier considered, with its similarity score.
type Candidate struct {
	RuleID string  `json:"rule_id"`
	Score  float64 `json:"score"`
}

// Event is one receipt: what happened to a rule, why, and the rule's evidence after it.
type Event struct {
	EventID     int64       `json:"event_id"`
	RuleID      string      `json:"rule_id"`
	EventType   EventType   `json:"event_type"`
	UserText    string      `json:"user_text,omitempty"`
	AgentOutput string      `json:"agent_output,omitempty"`
	FrameID     string      `json:"frame_id,omitempty"`
	Scope       Scope       `json:"scope"`
	Decision    string      `json:"decision,omitempty"`
	Score       *float64    `json:"score,omitempty"`
	Candidates  []Candidate `json:"candidates,omitempty"`
	Model       string      `json:"model,omitempty"`
	Detail      string      `json:"detail,omitempty"`
	// Polarity is the evidence the event added: 1 a reinforcement, −1 a
	// counterexample, 0 none (creation, manual override).
	Polarity Polarity  `json:"polarity,omitempty"`
	Alpha    float64   `json:"alpha"`
	Beta     float64   `json:"beta"`
	At       time.Time `json:"at"`
}

// ApplyEvidence adds one observation of polarity p at time at: a
// reinforcement adds 1 to alpha, a counterexample 1 to beta. last_correction
// moves to at unless it is already later (backfills never move it back), and
// first_seen moves back to at if at is earlier.
func (r *Rule) ApplyEvidence(p Polarity, at time.Time) {
	at = at.UTC()
	if p == Counter {
		r.Beta++
		r.CounterExamples++
	} else {
		r.Alpha++
		r.Reinforcements++
	}
	if at.After(r.LastCorrection) {
		r.LastCorrection = at
	}
	if r.FirstSeen.IsZero() || at.Before(r.FirstSeen) {
		r.FirstSeen = at
	}
}

// MergeEvidence adds from's evidence to r, as when a candidate is merged
// into a rule: its reinforcements and counterexamples to α, β and the
// counts, its last correction when it has evidence and is later, its first
// seen when earlier.
func (r *Rule) MergeEvidence(from Rule) {
	r.Alpha += float64(from.Reinforcements)
	r.Beta += float64(from.CounterExamples)
	r.Reinforcements += from.Reinforcements
	r.CounterExamples += from.CounterExamples
	if from.Evidence() > 0 && from.LastCorrection.After(r.LastCorrection) {
		r.LastCorrection = from.LastCorrection
	}
	if from.FirstSeen.Before(r.FirstSeen) {
		r.FirstSeen = from.FirstSeen
	}
}

// Correction is a request to record evidence on a rule.
type Correction struct {
	RuleID   string
	Polarity Polarity
	UserText string
	// Instruction is the standing instruction the user's words state, as
	// the reporter (usually the agent) reads it: one short sentence, best
	// in English for the shipped model ("Use pnpm, not npm"). When set it
	// is what the classifier reads (unless UserText names its rule with
	// CORRECT[...]) and a proposed rule's text; UserText stays the receipt.
	// It lets a correction said in any language reach an English rule.
	Instruction string
	AgentOutput string
	FrameID     string
	Scope       Scope
	At          time.Time
	// Classifier context, stored on the event when present.
	Decision   string
	Score      *float64
	Candidates []Candidate
	Model      string
	// IdempotencyKey makes a retry return the first result and record nothing.
	IdempotencyKey string
	// Confirmation marks evidence the user confirmed from a pending
	// confirmation: the event is a confirmation event carrying the polarity.
	Confirmation bool
	Detail       string
	// Stated names the explicit act this correction is (one of the
	// Stated* names), "" for implicit evidence: a reinforcement then puts
	// the rule in force at once (Rule.State), a counterexample withdraws
	// its statement (Rule.Unstate).
	Stated string
}

// MaxUserTextLength bounds the stored text of a correction (1 MiB).
const MaxUserTextLength = 1 << 20

// MaxInstructionLength bounds a correction's Instruction, in characters:
// one sentence.
const MaxInstructionLength = 500

// ValidateInstruction checks a non-empty Instruction: valid UTF-8 without
// control characters (tab, line feed and CRLF aside), at most
// MaxInstructionLength characters (ETOOLARGE), with a letter or digit
// (EINVALID otherwise, naming the field).
func ValidateInstruction(s string) error {
	if err := ValidateText("instruction", s, 0); err != nil {
		return err
	}
	if n := utf8.RuneCountInString(s); n > MaxInstructionLength {
		return Errorf(ETOOLARGE, "instruction is %d characters long: at most %d, one sentence", n, MaxInstructionLength)
	}
	if !hasLetterOrDigit(s) {
		return Errorf(EINVALID, "instruction has no letters or digits: state the instruction in a sentence, or leave it out")
	}
	return nil
}

// MaxClockSkew is how far after the recorder's clock a correction's time may
// lie. A client whose clock runs a little ahead is tolerated; a later time is
// refused, because it would become the rule's last correction, stay ahead of
// every real one and switch the rule's decay off until that date.
const MaxClockSkew = 5 * time.Minute

// ValidateCorrectionTime returns EINVALID, naming both times, when at lies
// more than MaxClockSkew after now. Past times (backfills) are fine.
func ValidateCorrectionTime(at, now time.Time) error {
	if at.After(now.Add(MaxClockSkew)) {
		return Errorf(EINVALID, "correction time %s is in the future (the clock here says %s): a correction can be dated back, never ahead",
			at.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
	}
	return nil
}

// Validate checks the correction's fields without changing it, returning an
// EINVALID or ETOOLARGE error naming the first bad one. The rule id is
// checked only when set. The scope is checked in its normal form (see
// Scope.Normalize), so " Work " passes as "work"; Normalize stores that form.
func (c Correction) Validate() error {
	if c.RuleID != "" {
		if err := ValidateRuleID(c.RuleID); err != nil {
			return err
		}
	}
	if err := c.Polarity.Check(); err != nil {
		return err
	}
	if err := ValidateCorrectionText("correction text", c.UserText); err != nil {
		return err
	}
	if c.Instruction != "" {
		if err := ValidateInstruction(c.Instruction); err != nil {
			return err
		}
	}
	if c.AgentOutput != "" {
		if err := ValidateText("agent output", c.AgentOutput, MaxUserTextLength); err != nil {
			return err
		}
	}
	if err := ValidateFrameID(c.FrameID); err != nil {
		return err
	}
	if len(c.IdempotencyKey) > 256 {
		return Errorf(EINVALID, "idempotency key is %d bytes long: at most 256", len(c.IdempotencyKey))
	}
	if _, err := ParseScope(c.Scope); err != nil {
		return err
	}
	if c.At.IsZero() {
		return Errorf(EINVALID, "correction time is not set")
	}
	return nil
}

// Normalize validates the correction (see Validate) and, when it is valid,
// puts its scope in normal form: values trimmed and lower-cased, tags sorted
// and unique. On an error the correction is left unchanged.
func (c *Correction) Normalize() error {
	if err := c.Validate(); err != nil {
		return err
	}
	c.Scope = c.Scope.Normalize()
	return nil
}
