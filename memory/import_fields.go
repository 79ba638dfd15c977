package memory

import (
	"math"
	"unicode/utf8"

	"github.com/lexsona/lexsona/engine"
)

// checkMultiline checks a stored text that may span lines and be empty.
func checkMultiline(field, s string) error {
	if !utf8.ValidString(s) {
		return engine.Errorf(engine.EINVALID, "%s is not valid UTF-8", field)
	}
	if len(s) > engine.MaxUserTextLength {
		return engine.Errorf(engine.ETOOLARGE, "%s is %d bytes long: at most %d", field, len(s), engine.MaxUserTextLength)
	}
	return engine.CheckChars(field, s, true)
}

// checkCandidates checks the rules a classifier considered: at most
// engine.MaxEventCandidates, valid ids, finite scores.
func checkCandidates(cs []engine.Candidate) error {
	if len(cs) > engine.MaxEventCandidates {
		return engine.Errorf(engine.EINVALID, "%d candidates: at most %d", len(cs), engine.MaxEventCandidates)
	}
	for _, k := range cs {
		if err := engine.ValidateRuleID(k.RuleID); err != nil {
			return engine.Errorf(engine.EINVALID, "candidate: %s", engine.ErrorMessage(err))
		}
		if math.IsNaN(k.Score) || math.IsInf(k.Score, 0) {
			return engine.Errorf(engine.EINVALID, "candidate %s has a score that is not a finite number", k.RuleID)
		}
	}
	return nil
}
