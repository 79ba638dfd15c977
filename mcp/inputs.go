package mcp

import (
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
)

// Scope is the context fields every scoped tool takes.
type Scope struct {
	Environment string   `json:"environment,omitempty" jsonschema:"the environment, e.g. work or personal (lowercase)"`
	Project     string   `json:"project,omitempty" jsonschema:"the project (repository) name (lowercase)"`
	AgentFamily string   `json:"agent_family,omitempty" jsonschema:"the agent family, e.g. claude, gpt or copilot"`
	ContextTags []string `json:"context_tags,omitempty" jsonschema:"context tags, e.g. migration or cli"`
}

func (m Scope) scope() engine.Scope {
	return engine.Scope{Environment: m.Environment, Project: m.Project, AgentFamily: m.AgentFamily, ContextTags: m.ContextTags}
}

// Tool inputs: each tool's arguments, its input schema inferred from them.
type (
	classifyIn struct {
		Text string `json:"text" jsonschema:"the user's correction, as said"`
		Scope
	}
	recordIn struct {
		Text           string `json:"text" jsonschema:"the user's correction, as said; CORRECT[rule_id]: ... names the rule"`
		Instruction    string `json:"instruction,omitempty" jsonschema:"the standing instruction the user's words state, as one short English sentence (e.g. Use pnpm, not npm), whatever language the user wrote in: it is classified instead of text, which stays the receipt"`
		RuleID         string `json:"rule_id,omitempty" jsonschema:"the rule the correction is about, when known (skips the classifier)"`
		Polarity       int    `json:"polarity,omitempty" jsonschema:"1: the rule should hold (default); -1: a counterexample, the rule did not apply here"`
		FrameID        string `json:"frame_id,omitempty" jsonschema:"the Lex frame id this correction belongs to"`
		AgentOutput    string `json:"agent_output,omitempty" jsonschema:"what the agent did that was corrected"`
		IdempotencyKey string `json:"idempotency_key,omitempty" jsonschema:"a retry with the same key records nothing new"`
		Scope
	}
	personaIn struct {
		Scope
		Max    int    `json:"max,omitempty" jsonschema:"at most this many rules; 0 or absent: the configured max_rules (20 by default)"`
		Format string `json:"format,omitempty" jsonschema:"prompt (default): the Markdown block to follow; json: the whole snapshot"`
	}
	listRulesIn struct {
		Category string `json:"category,omitempty" jsonschema:"only this category, e.g. tool_preference"`
		Status   string `json:"status,omitempty" jsonschema:"only this status"`
		Scope
		Limit int    `json:"limit,omitempty" jsonschema:"at most this many rules (default 100, at most 10000)"`
		After string `json:"after,omitempty" jsonschema:"the next_after cursor of the previous page"`
	}
	explainIn struct {
		RuleID       string `json:"rule_id" jsonschema:"the rule to explain"`
		HistoryLimit int    `json:"history_limit,omitempty" jsonschema:"at most this many events, in the order recorded (default 100, at most 10000)"`
	}
	reviewIn struct {
		RuleID string `json:"rule_id" jsonschema:"the candidate rule (status candidate), e.g. a proposed.* rule or an exception proposal"`
		Action string `json:"action" jsonschema:"accept: it becomes active-eligible (an exception proposal also excludes its tag from the rule it is an exception to); reject: it is archived (an exception proposal is never proposed again)"`
	}
	listConfirmationsIn struct {
		Status string `json:"status,omitempty" jsonschema:"pending (default): the ones waiting for the user; accepted, rejected, new_rule, or all"`
		Limit  int    `json:"limit,omitempty" jsonschema:"at most this many, oldest first (default 100, at most 10000)"`
	}
	resolveIn struct {
		ID       int64  `json:"id" jsonschema:"the pending_id record_correction returned"`
		Action   string `json:"action" jsonschema:"accept: the correction was about rule_id (or the top candidate); reject: record nothing; new: propose a new rule from it"`
		RuleID   string `json:"rule_id,omitempty" jsonschema:"with accept: the rule the user meant (default: the top candidate)"`
		Polarity int    `json:"polarity,omitempty" jsonschema:"with accept or new: 1 if the user's words support the rule, -1 if they contradict it; absent: the direction the confirmation shows"`
	}
)

// addRuleIn is add_rule's input: a rule as memory.Service.AddRule takes it.
type addRuleIn = memory.NewRule

// ExplainRule is explain_rule's answer (as `lexsona why ID --json`).
type ExplainRule = memory.RuleHistory

// defaultRules is list_rules' default page, smaller than the HTTP one to
// spare the agent's context.
const defaultRules = 100

// correction is the correction record_correction records. Errors:
// engine.ParsePolarity's (an absent polarity, 0, is the default), the rest
// is memory.Service.Record's to check.
func (in recordIn) correction() (engine.Correction, error) {
	pol, err := engine.ParsePolarity(in.Polarity)
	return engine.Correction{
		UserText: in.Text, Instruction: in.Instruction, RuleID: in.RuleID, Polarity: pol, Scope: in.scope(),
		FrameID: in.FrameID, AgentOutput: in.AgentOutput, IdempotencyKey: in.IdempotencyKey,
	}, err
}
