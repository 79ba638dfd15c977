package eval

import (
	"fmt"
	"io"
	"math/rand/v2"
	"sort"

	"github.com/lexsona/lexsona/memory"
)

// RealReport is what the hook's capture decision made of one side of the
// real corpus: the stream's table, per repository, the 95% intervals of
// the target figures (bootstrap over repositories) and where the
// corrections that fit a rule but are not first in the inbox went.
type RealReport struct {
	Side   string        `json:"side"`
	Stream StreamReport  `json:"stream"`
	Repos  []RealRepo    `json:"repos"`
	CI     RealIntervals `json:"intervals"`
	// Misses counts, for corrections that fit a rule and were not
	// suggested with it first and the right direction, where they went
	// (MissGate, …), and how many of them are not English.
	Misses        map[string]int `json:"misses"`
	MissesForeign map[string]int `json:"misses_not_english"`
	// Explicit counts prompts in an explicit form (none are judged by the
	// gate); StanceDisagree the suggestions whose learned direction
	// differs from the rule-based one.
	Explicit       int `json:"explicit"`
	StanceDisagree int `json:"stance_disagree"`
}

// RealRepo is one repository's figures.
type RealRepo struct {
	Repo          string `json:"repo"`
	Prompts       int    `json:"prompts"`
	Ordinary      int    `json:"ordinary"`
	OrdinaryInbox int    `json:"ordinary_inbox"`
	Fit           int    `json:"fit"`
	RightFirst    int    `json:"right_first"`
	// EnglishOrdinary and EnglishOrdinaryInbox count the ordinary prompts
	// that are English (DerivedPrompt.English ≥ NotEnglish) and those of
	// them that became suggestions; zero when no derived figures were given.
	EnglishOrdinary      int `json:"english_ordinary"`
	EnglishOrdinaryInbox int `json:"english_ordinary_inbox"`
}

// Interval is a figure and its 95% interval.
type Interval struct {
	Value float64 `json:"value"`
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
}

// RealIntervals are the target figures with their intervals.
type RealIntervals struct {
	OrdinaryEvidence Interval `json:"ordinary_evidence"`
	OrdinaryInbox    Interval `json:"ordinary_inbox"`
	RightRuleOrInbox Interval `json:"right_rule_or_inbox"`
}

// Where a correction that fits a rule went when it was not suggested with
// its rule first and the right direction.
const (
	MissNotJudged = "not judged (explicit, empty or only pasted)"
	MissGate      = "gate"
	MissNoRule    = "passed, no rule near"
	MissBudget    = "passed, dropped by the inbox budget"
	MissWrongRule = "suggested, another rule first"
	MissDirection = "suggested, right rule, wrong direction"
)

// bootstrapRounds is how many resamplings of the repositories the
// intervals rest on; the seed is fixed, so they are the same every run.
const bootstrapRounds = 2000

// realReport counts what caps (by item) made of items.
func realReport(side string, items []StreamItem, caps []captured, derived map[string]DerivedPrompt) RealReport {
	rep := RealReport{Side: side, Misses: map[string]int{}, MissesForeign: map[string]int{}}
	sr := StreamReport{Split: "real " + side, Prompts: len(items), Polarity: map[string]map[string]int{}}
	cases := map[string]*StreamCase{}
	for _, k := range []string{CaseOrdinary, CaseRule, CaseAgreement, CaseContradiction, CaseNoRule} {
		cases[k] = &StreamCase{Kind: k, Outcomes: map[string]int{}}
	}
	byRepo := map[string]*RealRepo{}
	for _, w := range repos(items) {
		byRepo[w] = &RealRepo{Repo: w}
	}
	for i, it := range items {
		out := sr.count(cases, it, caps[i])
		r := byRepo[it.Writer]
		r.Prompts++
		k := caseOf(it)
		switch {
		case k == CaseOrdinary:
			r.Ordinary++
			english := derived != nil && derived[it.Text].English >= NotEnglish
			if english {
				r.EnglishOrdinary++
			}
			if out == OutPending {
				r.OrdinaryInbox++
				if english {
					r.EnglishOrdinaryInbox++
				}
			}
		case it.RuleID() != "":
			r.Fit++
			if out == OutPendingRight || out == OutRight {
				r.RightFirst++
				break
			}
			m := missOf(it, caps[i])
			rep.Misses[m]++
			if derived[it.Text].English < NotEnglish {
				rep.MissesForeign[m]++
			}
		}
	}
	for _, k := range []string{CaseOrdinary, CaseRule, CaseAgreement, CaseContradiction, CaseNoRule} {
		sr.Cases = append(sr.Cases, *cases[k])
	}
	sr.figures(cases)
	rep.Stream = sr
	for _, w := range repos(items) {
		rep.Repos = append(rep.Repos, *byRepo[w])
	}
	rep.CI = intervals(rep.Repos, sr)
	return rep
}

// missOf is where correction it, which fits a rule, went when c is not
// its rule first with the right direction.
func missOf(it StreamItem, c captured) string {
	switch {
	case c.action == memory.CapturePending && len(c.candidates) > 0 && c.candidates[0].RuleID == it.RuleID():
		return MissDirection
	case c.action == memory.CapturePending && len(c.candidates) > 0:
		return MissWrongRule
	case c.dropped == dropBudget:
		return MissBudget
	case c.passed:
		return MissNoRule
	case c.judged:
		return MissGate
	}
	return MissNotJudged
}

// intervals are the target figures with 95% bootstrap intervals over the
// repositories (resampled with replacement, the ratio of sums each time).
func intervals(rs []RealRepo, sr StreamReport) RealIntervals {
	var ci RealIntervals
	ev := sr.OrdinaryReinforced
	ci.OrdinaryEvidence = Interval{Value: ev, Low: ev, High: ev}
	ci.OrdinaryInbox.Value, ci.RightRuleOrInbox.Value = sr.OrdinaryInbox, sr.RightRuleOrInbox
	if len(rs) == 0 {
		return ci
	}
	rng := rand.New(rand.NewPCG(34, 2287))
	inbox := make([]float64, 0, bootstrapRounds)
	right := make([]float64, 0, bootstrapRounds)
	for b := 0; b < bootstrapRounds; b++ {
		var ord, oi, fit, rf int
		for range rs {
			r := rs[rng.IntN(len(rs))]
			ord, oi, fit, rf = ord+r.Ordinary, oi+r.OrdinaryInbox, fit+r.Fit, rf+r.RightFirst
		}
		inbox = append(inbox, ratio(oi, ord))
		if fit > 0 {
			right = append(right, ratio(rf, fit))
		}
	}
	ci.OrdinaryInbox.Low, ci.OrdinaryInbox.High = percentiles(inbox)
	ci.RightRuleOrInbox.Low, ci.RightRuleOrInbox.High = percentiles(right)
	return ci
}

// percentiles are the 2.5th and 97.5th percentiles of xs.
func percentiles(xs []float64) (float64, float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	sort.Float64s(xs)
	at := func(q float64) float64 { return xs[min(len(xs)-1, int(q*float64(len(xs))))] }
	return at(0.025), at(0.975)
}

// WriteRealText prints the report: the stream's table, the targets with
// their intervals, where the misses went, and every repository.
func WriteRealText(w io.Writer, rep RealReport) {
	WriteStreamText(w, rep.Stream)
	ci := rep.CI
	fmt.Fprintf(w, "95%% intervals (bootstrap over %d repositories): ordinary in the inbox %.2f%% [%.2f, %.2f], right rule first with the right direction %.1f%% [%.1f, %.1f]\n",
		len(rep.Repos), 100*ci.OrdinaryInbox.Value, 100*ci.OrdinaryInbox.Low, 100*ci.OrdinaryInbox.High,
		100*ci.RightRuleOrInbox.Value, 100*ci.RightRuleOrInbox.Low, 100*ci.RightRuleOrInbox.High)
	var eng, engInbox int
	for _, r := range rep.Repos {
		eng, engInbox = eng+r.EnglishOrdinary, engInbox+r.EnglishOrdinaryInbox
	}
	if eng > 0 {
		fmt.Fprintf(w, "English ordinary prompts in the inbox: %d/%d = %.2f%% (the gate reads English best, so a team writing in English sees this share)\n", engInbox, eng, 100*ratio(engInbox, eng))
	}
	fmt.Fprintf(w, "Corrections that fit a rule and were not first in the inbox with the right direction (not English among them):\n")
	for _, m := range []string{MissNotJudged, MissGate, MissNoRule, MissBudget, MissWrongRule, MissDirection} {
		if n := rep.Misses[m]; n > 0 {
			fmt.Fprintf(w, "  %-42s %3d (%d)\n", m, n, rep.MissesForeign[m])
		}
	}
	if rep.StanceDisagree > 0 {
		fmt.Fprintf(w, "Suggestions whose direction is marked unsure (the learned stance reads it the other way): %d\n", rep.StanceDisagree)
	}
	if rep.Explicit > 0 {
		fmt.Fprintf(w, "Prompts in an explicit form (recorded as said, not judged here): %d\n", rep.Explicit)
	}
	fmt.Fprintf(w, "Per repository (prompts, ordinary in the inbox, corrections that fit a rule first in the inbox):\n")
	for _, r := range rep.Repos {
		fmt.Fprintf(w, "  %-48s %4d  %3d/%-4d  %d/%d\n", r.Repo, r.Prompts, r.OrdinaryInbox, r.Ordinary, r.RightFirst, r.Fit)
	}
}
