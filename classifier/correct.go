package classifier

import (
	"strings"
	"unicode/utf8"

	"github.com/lexsona/lexsona/engine"
)

// explicitKeyword starts an explicit correction: CORRECT[rule_id]: explanation.
const explicitKeyword = "correct"

// ParseExplicit recognises an explicit correction, `CORRECT[rule_id]: why`, at
// the start of text. The keyword is case-insensitive and white space is
// tolerated around the keyword, the brackets, the id and the colon, so
// "  correct [ tool.x ] : why" is explicit for tool.x with explanation "why".
//
// It returns ok=false and no error when text does not start with the keyword
// followed by '[' (so "Correct the typo" is an ordinary correction). Once
// "CORRECT[" is seen the text is meant to be explicit, and a missing ']', a
// missing ':' or a malformed rule id is an EINVALID error naming what is wrong
// (and, for an id, the id). On success ruleID is a valid rule id (see
// engine.ValidateRuleID) and explanation is the trimmed rest of the text,
// possibly empty. Whether the rule exists is the caller's business.
func ParseExplicit(text string) (ruleID, explanation string, ok bool, err error) {
	s := strings.TrimLeft(text, " \t\r\n\v\f")
	if len(s) < len(explicitKeyword) || !strings.EqualFold(s[:len(explicitKeyword)], explicitKeyword) {
		return "", "", false, nil
	}
	s = trimLeftSpace(s[len(explicitKeyword):])
	if !strings.HasPrefix(s, "[") {
		return "", "", false, nil
	}
	s = s[1:]
	end := strings.IndexByte(s, ']')
	if end < 0 {
		return "", "", false, engine.Errorf(engine.EINVALID, "explicit correction has no closing ']': want CORRECT[rule_id]: explanation")
	}
	id := strings.TrimSpace(s[:end])
	if !utf8.ValidString(id) {
		return "", "", false, engine.Errorf(engine.EINVALID, "explicit correction: rule id is not valid UTF-8")
	}
	if err := engine.ValidateRuleID(id); err != nil {
		return "", "", false, engine.Errorf(engine.EINVALID, "explicit correction: %s", engine.ErrorMessage(err))
	}
	s = trimLeftSpace(s[end+1:])
	if !strings.HasPrefix(s, ":") {
		return "", "", false, engine.Errorf(engine.EINVALID, "explicit correction for %q has no ':' after ']': want CORRECT[%s]: explanation", id, id)
	}
	return id, strings.TrimSpace(s[1:]), true, nil
}

func trimLeftSpace(s string) string { return strings.TrimLeft(s, " \t\r\n\v\f") }
