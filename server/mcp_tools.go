package server

import (
	"context"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
)

// MCPScope is the context fields every scoped tool takes.
type MCPScope struct {
	Environment string   `json:"environment,omitempty" jsonschema:"the environment, e.g. work or personal (lowercase)"`
	Project     string   `json:"project,omitempty" jsonschema:"the project (repository) name (lowercase)"`
	AgentFamily string   `json:"agent_family,omitempty" jsonschema:"the agent family, e.g. claude, gpt or copilot"`
	ContextTags []string `json:"context_tags,omitempty" jsonschema:"context tags, e.g. migration or cli"`
}

func (m MCPScope) scope() engine.Scope {
	return engine.Scope{Environment: m.Environment, Project: m.Project, AgentFamily: m.AgentFamily, ContextTags: m.ContextTags}
}

// Tool inputs.
type (
	mcpClassifyIn struct {
		Text string `json:"text" jsonschema:"the user's correction, as said"`
		MCPScope
	}
	mcpRecordIn struct {
		Text           string `json:"text" jsonschema:"the user's correction, as said; CORRECT[rule_id]: ... names the rule"`
		RuleID         string `json:"rule_id,omitempty" jsonschema:"the rule the correction is about, when known (skips the classifier)"`
		Polarity       int    `json:"polarity,omitempty" jsonschema:"1: the rule should hold (default); -1: a counterexample, the rule did not apply here"`
		FrameID        string `json:"frame_id,omitempty" jsonschema:"the Lex frame id this correction belongs to"`
		AgentOutput    string `json:"agent_output,omitempty" jsonschema:"what the agent did that was corrected"`
		IdempotencyKey string `json:"idempotency_key,omitempty" jsonschema:"a retry with the same key records nothing new"`
		MCPScope
	}
	mcpPersonaIn struct {
		MCPScope
		Max    int    `json:"max,omitempty" jsonschema:"at most this many rules; 0 or absent: the configured max_rules (20 by default)"`
		Format string `json:"format,omitempty" jsonschema:"prompt (default): the Markdown block to follow; json: the whole snapshot"`
	}
	mcpListRulesIn struct {
		Category string `json:"category,omitempty" jsonschema:"only this category, e.g. tool_preference"`
		Status   string `json:"status,omitempty" jsonschema:"only this status"`
		MCPScope
		Limit int    `json:"limit,omitempty" jsonschema:"at most this many rules (default 100, at most 10000)"`
		After string `json:"after,omitempty" jsonschema:"the next_after cursor of the previous page"`
	}
	mcpExplainIn struct {
		RuleID       string `json:"rule_id" jsonschema:"the rule to explain"`
		HistoryLimit int    `json:"history_limit,omitempty" jsonschema:"at most this many events, in the order recorded (default 100, at most 10000)"`
	}
	mcpReviewIn struct {
		RuleID string `json:"rule_id" jsonschema:"the candidate rule (status candidate), e.g. a proposed.* rule or an exception proposal"`
		Action string `json:"action" jsonschema:"accept: it becomes active-eligible (an exception proposal also excludes its tag from the rule it is an exception to); reject: it is archived (an exception proposal is never proposed again)"`
	}
	mcpListConfirmationsIn struct {
		Status string `json:"status,omitempty" jsonschema:"pending (default): the ones waiting for the user; accepted, rejected, new_rule, or all"`
		Limit  int    `json:"limit,omitempty" jsonschema:"at most this many, oldest first (default 100, at most 10000)"`
	}
	mcpResolveIn struct {
		ID       int64  `json:"id" jsonschema:"the pending_id record_correction returned"`
		Action   string `json:"action" jsonschema:"accept: the correction was about rule_id (or the top candidate); reject: record nothing; new: propose a new rule from it"`
		RuleID   string `json:"rule_id,omitempty" jsonschema:"with accept: the rule the user meant (default: the top candidate)"`
		Polarity int    `json:"polarity,omitempty" jsonschema:"with accept or new: 1 if the user's words support the rule, -1 if they contradict it; absent: the direction the confirmation shows"`
	}
)

// ExplainRule is explain_rule's answer (as `lexsona why ID --json`).
type ExplainRule = memory.RuleHistory

// mcpDefaultRules is list_rules' default page, smaller than the HTTP one to
// spare the agent's context.
const mcpDefaultRules = 100

// inputSchema infers T's schema and sets enums on the named properties.
func inputSchema[T any](enums map[string][]any) *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic("server: MCP input schema: " + err.Error())
	}
	for name, vals := range enums {
		s.Properties[name].Enum = vals
	}
	return s
}

// addMCPTools adds LexSona's tools to srv, each over the memory of tenant
// tenantName.
func (s *Server) addMCPTools(srv *mcp.Server, tenantName string) {
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}
	statuses := []any{string(engine.StatusActiveEligible), string(engine.StatusCandidate), string(engine.StatusArchived)}

	mcp.AddTool(srv, &mcp.Tool{Name: "classify_correction", Annotations: ro,
		Description: "Show which rule a user's correction maps to (decision auto_match, confirm or new_rule, with scored candidates) without recording anything.",
		InputSchema: inputSchema[mcpClassifyIn](nil)},
		func(ctx context.Context, _ *mcp.CallToolRequest, in mcpClassifyIn) (*mcp.CallToolResult, any, error) {
			mem, err := s.mcpMemory(ctx, tenantName)
			if err != nil {
				return nil, nil, s.toolError("classify_correction", err)
			}
			res, err := s.classifyText(ctx, mem, in.Text, in.scope())
			if err != nil {
				return nil, nil, s.toolError("classify_correction", err)
			}
			return nil, res, nil
		})

	mcp.AddTool(srv, &mcp.Tool{Name: "record_correction",
		Description: "Record a user's correction to the agent as evidence on a behavioral rule. Answers with the decision: auto_match/explicit (evidence recorded), confirm (pending_id: ask the user, then resolve_confirmation) or new_rule (a candidate rule was proposed; for a text that does not say what was wrong, or a counterexample that matches no rule, nothing is recorded and reason says so: ask the user). A correction that contradicts the rule it matches is recorded as a counterexample (polarity -1), never as a reinforcement.",
		InputSchema: inputSchema[mcpRecordIn](map[string][]any{"polarity": {1, -1}})},
		func(ctx context.Context, _ *mcp.CallToolRequest, in mcpRecordIn) (*mcp.CallToolResult, any, error) {
			mem, err := s.mcpMemory(ctx, tenantName)
			if err != nil {
				return nil, nil, s.toolError("record_correction", err)
			}
			req := CorrectionRequest{Text: in.Text, RuleID: in.RuleID, Scope: in.scope(), FrameID: in.FrameID, AgentOutput: in.AgentOutput}
			if in.Polarity != 0 {
				req.Polarity = &in.Polarity
			}
			corr, err := correction(req, in.IdempotencyKey)
			if err == nil {
				var resp any
				resp, _, err = s.record(ctx, mem, corr)
				if err == nil {
					return nil, resp, nil
				}
			}
			return nil, nil, s.toolError("record_correction", err)
		})

	mcp.AddTool(srv, &mcp.Tool{Name: "get_persona", Annotations: ro,
		Description: "Get the behavioral rules active for a context: the Markdown block to follow (format prompt, the default) or the whole snapshot (format json).",
		InputSchema: inputSchema[mcpPersonaIn](map[string][]any{"format": {"prompt", "json"}})},
		func(ctx context.Context, _ *mcp.CallToolRequest, in mcpPersonaIn) (*mcp.CallToolResult, any, error) {
			mem, err := s.mcpMemory(ctx, tenantName)
			if err != nil {
				return nil, nil, s.toolError("get_persona", err)
			}
			snap, err := mem.Persona(ctx, memory.PersonaRequest{Scope: in.scope(), Max: in.Max})
			if err != nil {
				return nil, nil, s.toolError("get_persona", err)
			}
			if in.Format == "json" {
				return nil, snap, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: snap.Prompt}}}, nil, nil
		})

	mcp.AddTool(srv, &mcp.Tool{Name: "list_rules", Annotations: ro,
		Description: "List rules with their confidence and state, optionally only those of a category or status, or that apply in a context (scope fields).",
		InputSchema: inputSchema[mcpListRulesIn](map[string][]any{"status": statuses})},
		func(ctx context.Context, _ *mcp.CallToolRequest, in mcpListRulesIn) (*mcp.CallToolResult, any, error) {
			mem, err := s.mcpMemory(ctx, tenantName)
			if err != nil {
				return nil, nil, s.toolError("list_rules", err)
			}
			q := memory.RulesQuery{Category: in.Category, Status: in.Status, Limit: in.Limit, After: in.After}
			if q.Limit == 0 {
				q.Limit = mcpDefaultRules
			}
			if sc := in.scope(); sc.Environment != "" || sc.Project != "" || sc.AgentFamily != "" || len(sc.ContextTags) > 0 {
				q.Scope = &sc
			}
			out, err := mem.ListRules(ctx, q)
			if err != nil {
				return nil, nil, s.toolError("list_rules", err)
			}
			return nil, out, nil
		})

	mcp.AddTool(srv, &mcp.Tool{Name: "explain_rule", Annotations: ro,
		Description: "Explain a rule: its text, scope, Beta evidence (alpha, beta), confidence and activation, and its receipts (every correction and change, in the order recorded; a backfill keeps its own time in at).",
		InputSchema: inputSchema[mcpExplainIn](nil)},
		func(ctx context.Context, _ *mcp.CallToolRequest, in mcpExplainIn) (*mcp.CallToolResult, any, error) {
			mem, err := s.mcpMemory(ctx, tenantName)
			if err != nil {
				return nil, nil, s.toolError("explain_rule", err)
			}
			if in.HistoryLimit < 0 {
				return nil, nil, s.toolError("explain_rule", engine.Errorf(engine.EINVALID, "history limit %d: want 1 to %d", in.HistoryLimit, MaxHistoryLimit))
			}
			out, err := mem.ExplainRule(ctx, in.RuleID, time.Time{}, in.HistoryLimit)
			if err != nil {
				return nil, nil, s.toolError("explain_rule", err)
			}
			return nil, out, nil
		})

	mcp.AddTool(srv, &mcp.Tool{Name: "add_rule",
		Description: "Add a behavioral rule the user states outright (\"always run go vet before saying a Go change is done\"), at the prior: it becomes active once corrections reinforce it. Answers with the rule as stored.",
		InputSchema: inputSchema[NewRuleRequest](map[string][]any{"severity": {"must", "should", "style"}})},
		func(ctx context.Context, _ *mcp.CallToolRequest, in NewRuleRequest) (*mcp.CallToolResult, any, error) {
			mem, err := s.mcpMemory(ctx, tenantName)
			if err != nil {
				return nil, nil, s.toolError("add_rule", err)
			}
			v, err := mem.AddRule(ctx, in)
			if err != nil {
				return nil, nil, s.toolError("add_rule", err)
			}
			return nil, v, nil
		})

	mcp.AddTool(srv, &mcp.Tool{Name: "review_candidate",
		Description: "Accept or reject a candidate rule (one proposed from a correction, or an exception proposal) after asking the user.",
		InputSchema: inputSchema[mcpReviewIn](map[string][]any{"action": {"accept", "reject"}})},
		func(ctx context.Context, _ *mcp.CallToolRequest, in mcpReviewIn) (*mcp.CallToolResult, any, error) {
			mem, err := s.mcpMemory(ctx, tenantName)
			if err != nil {
				return nil, nil, s.toolError("review_candidate", err)
			}
			v, err := mem.ReviewCandidate(ctx, in.RuleID, in.Action == "accept", time.Time{})
			if err != nil {
				return nil, nil, s.toolError("review_candidate", err)
			}
			return nil, v, nil
		})

	mcp.AddTool(srv, &mcp.Tool{Name: "list_confirmations", Annotations: ro,
		Description: "List the pending confirmations (corrections in the confirm band that wait for the user to say which rule they meant), oldest first, each with its id, text and scored candidates; resolve each with resolve_confirmation.",
		InputSchema: inputSchema[mcpListConfirmationsIn](map[string][]any{"status": {
			engine.PendingOpen, engine.PendingAccepted, engine.PendingRejected, engine.PendingNewRule, "all"}})},
		func(ctx context.Context, _ *mcp.CallToolRequest, in mcpListConfirmationsIn) (*mcp.CallToolResult, any, error) {
			mem, err := s.mcpMemory(ctx, tenantName)
			if err != nil {
				return nil, nil, s.toolError("list_confirmations", err)
			}
			out, err := mem.ListConfirmations(ctx, in.Status, in.Limit)
			if err != nil {
				return nil, nil, s.toolError("list_confirmations", err)
			}
			return nil, out, nil
		})

	mcp.AddTool(srv, &mcp.Tool{Name: "resolve_confirmation",
		Description: "Resolve a pending confirmation (record_correction's pending_id): accept (evidence on rule_id, or the top candidate), reject (nothing recorded) or new (propose a new rule from the correction; refused for a counterexample, which has no rule to propose). polarity sets the direction when the user says the confirmation's (its polarity field) is wrong.",
		InputSchema: inputSchema[mcpResolveIn](map[string][]any{"action": {"accept", "reject", "new"}, "polarity": {1, -1}})},
		func(ctx context.Context, _ *mcp.CallToolRequest, in mcpResolveIn) (*mcp.CallToolResult, any, error) {
			mem, err := s.mcpMemory(ctx, tenantName)
			if err != nil {
				return nil, nil, s.toolError("resolve_confirmation", err)
			}
			if in.ID <= 0 {
				return nil, nil, s.toolError("resolve_confirmation", engine.Errorf(engine.EINVALID, "id %d: want a positive pending_id", in.ID))
			}
			res, err := s.confirm(ctx, mem, in.ID, in.Action, in.RuleID, in.Polarity)
			if err != nil {
				return nil, nil, s.toolError("resolve_confirmation", err)
			}
			return nil, res, nil
		})
}
