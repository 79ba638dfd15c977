package memory

import (
	"fmt"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
)

// A correction may come with the reporter's one-sentence reading of the
// user's words (engine.Correction.Instruction): the model reads English,
// users write in every language. The reading is what is classified and what
// a proposed rule says; the words stay the receipt, and the event's detail
// says how they were read.

// classifiedText is what the classifier reads of c: its Instruction when
// the reporter gave one, unless the user's words name their rule with
// CORRECT[...] in any of the forms classifier.ParseExplicit accepts (or
// start to: a malformed one is then refused as such).
func classifiedText(c engine.Correction) string {
	if c.Instruction == "" {
		return c.UserText
	}
	if _, _, explicit, err := classifier.ParseExplicit(c.UserText); explicit || err != nil {
		return c.UserText
	}
	return c.Instruction
}

// proposalText is the text a rule proposed from confirmation p says: its
// instruction when it has one, else its words.
func proposalText(p engine.Pending) string {
	if p.Instruction != "" {
		return p.Instruction
	}
	return p.Text
}

// reportedAs is the event detail that keeps an instruction ("" for none).
func reportedAs(instruction string) string {
	if instruction == "" {
		return ""
	}
	return fmt.Sprintf("reported as: %q", instruction)
}
