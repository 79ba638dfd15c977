package eval

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/registry"
)

// Outcomes of one prompt of the stream, as StreamReport counts them.
const (
	OutReinforcement = "reinforcement"  // ordinary prompt recorded as a reinforcement
	OutCounter       = "counterexample" // ordinary prompt recorded as a counterexample
	OutRight         = "right rule"     // recorded on its rule, with its polarity
	OutWrongPolarity = "right rule, wrong polarity"
	OutWrongRule     = "wrong rule"
	OutPendingRight  = "inbox, right rule first"
	OutPending       = "inbox"
	OutProposed      = "proposed rule"
	OutLeftAlone     = "left alone"
)

// StreamCase is one kind of prompt of the stream and what became of each.
type StreamCase struct {
	Kind     string         `json:"kind"`
	Total    int            `json:"total"`
	Outcomes map[string]int `json:"outcomes"`
}

// StreamReport is what the hook's capture made of a prompt stream: per kind
// of prompt, how many were recorded on the right rule, on a wrong rule, as
// counterexamples, put in the inbox or left alone; the gate's precision and
// recall; and the polarity of what was recorded on a prompt's own rule.
type StreamReport struct {
	Split    string       `json:"split"`
	Prompts  int          `json:"prompts"`
	Cases    []StreamCase `json:"cases"`
	GatePass struct {
		Ordinary, OrdinaryPassed, Corrections, CorrectionsPassed int
	} `json:"gate"`
	// Polarity counts, for prompts recorded on their own rule, the event
	// recorded (reinforcement, counterexample) by what the prompt says
	// (support, agreement, contradict).
	Polarity map[string]map[string]int `json:"polarity"`
	// Notes counts the prompts that made the hook say anything to the
	// agent (a recorded correction; the default notes setting adds nothing
	// mid-task).
	NotesOrdinary int `json:"notes_on_ordinary"`
	// Figures the targets are about. OrdinaryInbox is the share of
	// ordinary prompts that became an inbox suggestion; RightRuleOrInbox
	// the share of corrections that fit a rule recorded on it or first in
	// the inbox with the right direction.
	OrdinaryReinforced  float64 `json:"ordinary_reinforced"`
	OrdinaryNoted       float64 `json:"ordinary_noted"`
	OrdinaryInbox       float64 `json:"ordinary_inbox"`
	RightRule           float64 `json:"right_rule"`
	RightRuleOrInbox    float64 `json:"right_rule_or_inbox"`
	AgreementsCountered int     `json:"agreements_countered"`
	ContradictionsReinf float64 `json:"contradictions_reinforced"`
	// outcomes is what became of each prompt, by item id.
	outcomes map[string]string
}

// Kinds of StreamCase.
const (
	CaseOrdinary      = "ordinary prompt"
	CaseRule          = "correction of a rule (support)"
	CaseAgreement     = "agreement with a rule"
	CaseContradiction = "contradiction of a rule"
	CaseNoRule        = "correction no rule fits"
)

// RunStream sends every prompt of items (one split) through
// memory.Service.Capture, as the Claude Code hook does: each writer (a user)
// has a store of their own holding reg embedded by emb, and their sessions'
// prompts arrive in order, with the session's scope and id.
func RunStream(ctx context.Context, emb models.Embedder, reg *registry.Registry, items []StreamItem, split string, progress io.Writer) (StreamReport, error) {
	rep := StreamReport{Split: split, Prompts: len(items), Polarity: map[string]map[string]int{}, outcomes: map[string]string{}}
	cases := map[string]*StreamCase{}
	for _, k := range []string{CaseOrdinary, CaseRule, CaseAgreement, CaseContradiction, CaseNoRule} {
		cases[k] = &StreamCase{Kind: k, Outcomes: map[string]int{}}
	}
	if _, ok := emb.(*models.Cached); !ok {
		emb = models.NewCached(emb, 4096)
	}
	dir, err := os.MkdirTemp("", "lexsona-stream-*")
	if err != nil {
		return rep, fmt.Errorf("creating the stream's temporary stores: %w", err)
	}
	defer os.RemoveAll(dir)
	var writers []string
	for _, it := range items {
		if !slices.Contains(writers, it.Writer) {
			writers = append(writers, it.Writer)
		}
	}
	for _, w := range writers {
		// The classifier's defaults for the model, never a calibration file
		// of the machine running the eval.
		mem, err := memory.Open(ctx, filepath.Join(dir, w+".db"), emb, memory.Options{Classifier: classifier.Options{CalibrationDir: dir}})
		if err != nil {
			return rep, err
		}
		if _, err := mem.Precompute(ctx, reg, memory.SyncOptions{}); err != nil {
			mem.Close()
			return rep, err
		}
		for _, it := range items {
			if it.Writer != w {
				continue
			}
			res, err := mem.Capture(ctx, engine.Correction{UserText: it.Text, Scope: it.Scope(), FrameID: it.Session})
			if err != nil {
				mem.Close()
				return rep, fmt.Errorf("%s: %w", it.ID, err)
			}
			rep.outcomes[it.ID] = rep.count(cases, it, capturedOf(res))
		}
		mem.Close()
		if progress != nil {
			fmt.Fprintf(progress, "stream: writer %s done\n", w)
		}
	}
	for _, k := range []string{CaseOrdinary, CaseRule, CaseAgreement, CaseContradiction, CaseNoRule} {
		rep.Cases = append(rep.Cases, *cases[k])
	}
	rep.figures(cases)
	return rep, nil
}

// caseOf is the kind of prompt it is.
func caseOf(it StreamItem) string {
	switch {
	case !it.IsCorrection():
		return CaseOrdinary
	case it.RuleID() == "":
		return CaseNoRule
	case it.Contradicts():
		return CaseContradiction
	case it.Form == FormAgreement:
		return CaseAgreement
	}
	return CaseRule
}

// captured is what the hook's capture made of one prompt, as the stream
// counts it: whether the gate passed it, what was written (a recording, a
// suggestion, a stated rule, nothing) and the classifier's candidates,
// polarity and recorded event.
type captured struct {
	passed     bool
	action     string // a memory.Capture… action
	ruleID     string
	event      engine.EventType
	candidates []engine.Candidate
	polarity   engine.Polarity
	// judged says the gate read the prompt and dropped why a prompt it
	// passed became nothing: dropNoRule, dropBudget (replays only).
	judged  bool
	dropped string
}

// Why a prompt past the gate became nothing.
const (
	dropNoRule = "no rule and nothing to learn"
	dropBudget = "inbox budget"
)

// capturedOf is what memory.Service.Capture's response res says.
func capturedOf(res memory.CaptureResponse) captured {
	c := captured{passed: res.Gate != nil && res.Gate.Passed, action: res.Action}
	if res.RecordResponse != nil {
		c.candidates, c.polarity = res.Candidates, res.Polarity
	}
	if res.Action == memory.CaptureRecorded {
		c.ruleID, c.event = res.RuleID, res.EventType
	}
	return c
}

// count adds what the capture did with it and returns its outcome.
func (rep *StreamReport) count(cases map[string]*StreamCase, it StreamItem, res captured) string {
	k := caseOf(it)
	c := cases[k]
	c.Total++
	passed := res.passed
	if it.IsCorrection() {
		rep.GatePass.Corrections++
		if passed {
			rep.GatePass.CorrectionsPassed++
		}
	} else {
		rep.GatePass.Ordinary++
		if passed {
			rep.GatePass.OrdinaryPassed++
		}
	}
	out := OutLeftAlone
	switch res.action {
	case memory.CaptureRecorded:
		counter := res.event == engine.EventCounterexample
		switch {
		case k == CaseOrdinary && counter:
			out = OutCounter
		case k == CaseOrdinary:
			out = OutReinforcement
			rep.NotesOrdinary++
		case res.ruleID != it.RuleID():
			out = OutWrongRule
		case counter == it.Contradicts():
			out = OutRight
		default:
			out = OutWrongPolarity
		}
		if k == CaseOrdinary && counter {
			rep.NotesOrdinary++
		}
		if it.RuleID() != "" && res.ruleID == it.RuleID() {
			said := StanceSupport
			if k == CaseAgreement {
				said = FormAgreement
			} else if it.Contradicts() {
				said = StanceContradict
			}
			if rep.Polarity[said] == nil {
				rep.Polarity[said] = map[string]int{}
			}
			rep.Polarity[said][string(res.event)]++
		}
	case memory.CapturePending:
		out = OutPending
		if it.RuleID() != "" && len(res.candidates) > 0 && res.candidates[0].RuleID == it.RuleID() &&
			(res.polarity == engine.Counter) == it.Contradicts() {
			out = OutPendingRight
		}
	case memory.CaptureStated:
		out = OutProposed
	}
	c.Outcomes[out]++
	return out
}

// figures computes the shares the targets are about.
func (rep *StreamReport) figures(cases map[string]*StreamCase) {
	ord := cases[CaseOrdinary]
	rep.OrdinaryReinforced = ratio(ord.Outcomes[OutReinforcement], ord.Total)
	rep.OrdinaryNoted = ratio(rep.NotesOrdinary, ord.Total)
	right, first, fit := 0, 0, 0
	for _, k := range []string{CaseRule, CaseAgreement, CaseContradiction} {
		right += cases[k].Outcomes[OutRight]
		first += cases[k].Outcomes[OutPendingRight]
		fit += cases[k].Total
	}
	rep.RightRule = ratio(right, fit)
	rep.RightRuleOrInbox = ratio(right+first, fit)
	rep.OrdinaryInbox = ratio(ord.Outcomes[OutPending]+ord.Outcomes[OutPendingRight], ord.Total)
	rep.AgreementsCountered = rep.Polarity[FormAgreement][string(engine.EventCounterexample)]
	con := cases[CaseContradiction]
	rep.ContradictionsReinf = ratio(rep.Polarity[StanceContradict][string(engine.EventReinforcement)], con.Total)
}

// WriteStreamText prints the stream report.
func WriteStreamText(w io.Writer, rep StreamReport) {
	fmt.Fprintf(w, "Prompt stream (%s split, %d prompts), through the hook's capture:\n", rep.Split, rep.Prompts)
	outs := []string{OutRight, OutWrongPolarity, OutWrongRule, OutReinforcement, OutCounter, OutPendingRight, OutPending, OutProposed, OutLeftAlone}
	for _, c := range rep.Cases {
		fmt.Fprintf(w, "  %-32s %5d:", c.Kind, c.Total)
		for _, o := range outs {
			if n := c.Outcomes[o]; n > 0 {
				fmt.Fprintf(w, "  %s %d", o, n)
			}
		}
		fmt.Fprintln(w)
	}
	g := rep.GatePass
	fmt.Fprintf(w, "Gate: %d/%d corrections passed (recall %.3f), %d/%d ordinary prompts passed (precision %.3f)\n",
		g.CorrectionsPassed, g.Corrections, ratio(g.CorrectionsPassed, g.Corrections), g.OrdinaryPassed, g.Ordinary,
		ratio(g.CorrectionsPassed, g.CorrectionsPassed+g.OrdinaryPassed))
	fmt.Fprintf(w, "Polarity of what was recorded on a prompt's own rule (said → recorded):\n")
	for _, said := range []string{StanceSupport, FormAgreement, StanceContradict} {
		p := rep.Polarity[said]
		fmt.Fprintf(w, "  %-10s reinforcement %d, counterexample %d\n", said, p[string(engine.EventReinforcement)], p[string(engine.EventCounterexample)])
	}
	fmt.Fprintf(w, "Targets: ordinary leaving evidence %.2f%% (≤ 0.1%%), ordinary in the inbox %.2f%% (≤ 3%%), corrections recorded on the right rule or first in the inbox with the right direction %.1f%% (≥ 15%%; recorded alone %.1f%%), agreements countered %d (0), contradictions reinforced %.1f%% (0)\n",
		100*rep.OrdinaryReinforced, 100*rep.OrdinaryInbox, 100*rep.RightRuleOrInbox, 100*rep.RightRule, rep.AgreementsCountered, 100*rep.ContradictionsReinf)
}
