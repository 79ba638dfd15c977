// Package agentfile writes the persona into the files coding agents read: a
// managed block in AGENTS.md or CLAUDE.md, or a whole Cursor rule.
package agentfile

import (
	"strings"

	"github.com/lexsona/lexsona/engine"
)

// Formats of an agent file.
const (
	FormatAgentsMD   = "agents-md"   // a managed block in AGENTS.md (Codex and other AGENTS.md readers)
	FormatClaudeMD   = "claude-md"   // a managed block in CLAUDE.md (Claude Code)
	FormatCursorRule = "cursor-rule" // a whole .cursor/rules/lexsona.mdc
)

// Markers delimit the managed block in AGENTS.md and CLAUDE.md; everything
// outside them belongs to the user.
const (
	BeginMarker = "<!-- lexsona:begin -->"
	EndMarker   = "<!-- lexsona:end -->"
)

// blockNote is the first line inside the managed block.
const blockNote = "<!-- Written by LexSona (`lexsona snapshot --write` or `lexsona watch`); edits between these markers are replaced on the next write. -->"

// ReportInstruction asks the agent to report the user's corrections: the
// agent, which knows what it just did, is the judge of what is a
// correction, with the user's own words and its one-sentence reading of
// them (engine.Correction.Instruction). Every agent file ends with it under
// ReportHeading, and Claude Code's SessionStart context carries it too.
const ReportInstruction = "LexSona keeps this user's corrections of how you work. When the user corrects how you work " +
	"or states a standing preference (tools, style, process, communication — not a bug in the code or a new task), " +
	"record it once, with the user's own words: call the MCP tool `record_correction` (with this project's name as " +
	"project) if you have it, else run `lexsona record --detect . --text \"<the user's words>\"` in the project, " +
	"adding `--rule RULE_ID` when a rule listed above fits and `--counter` when the user objects to that rule. " +
	"Give the instruction it states as one short English sentence too (`instruction`, `--instruction`), " +
	"whatever language the user wrote in. Do not record anything else."

// ReportHeading heads ReportInstruction in an agent file.
const ReportHeading = "## Reporting corrections to LexSona"

// cursorDescription is the Cursor rule's description front matter.
const cursorDescription = "Behavioral rules LexSona learned from your corrections (written by lexsona snapshot --write or lexsona watch)"

// Formats lists the formats Render and WriteAgentFile accept.
func Formats() []string { return []string{FormatAgentsMD, FormatClaudeMD, FormatCursorRule} }

// ValidFormat reports whether f is one of Formats.
func ValidFormat(f string) bool {
	switch f {
	case FormatAgentsMD, FormatClaudeMD, FormatCursorRule:
		return true
	}
	return false
}

// Render returns the text LexSona owns for format, with "\n" line endings:
// the managed block (markers included, no trailing newline) for agents-md and
// claude-md, the whole file for cursor-rule; each holds prompt, then
// ReportInstruction under ReportHeading. Errors: EINVALID for an unknown
// format.
func Render(format, prompt string) (string, error) {
	body := strings.TrimRight(strings.ReplaceAll(prompt, "\r\n", "\n"), "\n") + "\n\n" + ReportHeading + "\n\n" + ReportInstruction
	switch format {
	case FormatAgentsMD, FormatClaudeMD:
		return BeginMarker + "\n" + blockNote + "\n\n" + body + "\n\n" + EndMarker, nil
	case FormatCursorRule:
		return "---\ndescription: " + cursorDescription + "\nglobs:\nalwaysApply: true\n---\n\n" + body + "\n", nil
	}
	return "", engine.Errorf(engine.EINVALID, "format %q: want one of %s", format, strings.Join(Formats(), ", "))
}

// Merge returns old with the managed block replaced by block (block as Render
// returns it, "\n" endings). The file's line ending (CRLF when its first line
// ends so) is used for the block; every byte outside the markers is kept. A
// file without markers gets the block appended after a blank line; an empty
// file becomes the block. Errors: EINVALID when the markers are malformed (an
// end without a begin, a begin without an end, or more than one block), which
// a person must sort out.
func Merge(old, block string) (string, error) {
	eol := "\n"
	if i := strings.IndexByte(old, '\n'); i > 0 && old[i-1] == '\r' {
		eol = "\r\n"
	}
	block = strings.ReplaceAll(block, "\n", eol)
	begin := strings.Index(old, BeginMarker)
	end := strings.Index(old, EndMarker)
	switch {
	case begin < 0 && end < 0:
		if old == "" {
			return block + eol, nil
		}
		if !strings.HasSuffix(old, "\n") {
			old += eol
		}
		return old + eol + block + eol, nil
	case begin < 0:
		return "", engine.Errorf(engine.EINVALID, "found %s without %s before it", EndMarker, BeginMarker)
	case end < begin:
		return "", engine.Errorf(engine.EINVALID, "found %s before %s", EndMarker, BeginMarker)
	}
	if strings.Count(old, BeginMarker) > 1 || strings.Count(old, EndMarker) > 1 {
		return "", engine.Errorf(engine.EINVALID, "found more than one %s … %s block", BeginMarker, EndMarker)
	}
	return old[:begin] + block + old[end+len(EndMarker):], nil
}
