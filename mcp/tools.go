package mcp

import (
	"context"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
)

// inputSchema infers T's schema and sets enums on the named properties.
func inputSchema[T any](enums map[string][]any) *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic("mcp: input schema: " + err.Error())
	}
	for name, vals := range enums {
		s.Properties[name].Enum = vals
	}
	return s
}

// addTools adds LexSona's tools to srv, each over the memory of tenant
// tenantName.
func (s *Server) addTools(srv *sdkmcp.Server, tenantName string) {
	ro := &sdkmcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}
	statuses := []any{string(engine.StatusActiveEligible), string(engine.StatusCandidate), string(engine.StatusArchived)}

	sdkmcp.AddTool(srv, &sdkmcp.Tool{Name: "classify_correction", Annotations: ro,
		Description: "Show which rule a user's correction maps to (decision auto_match, confirm or new_rule, with scored candidates) without recording anything.",
		InputSchema: inputSchema[classifyIn](nil)},
		func(ctx context.Context, _ *sdkmcp.CallToolRequest, in classifyIn) (*sdkmcp.CallToolResult, any, error) {
			mem, err := s.memoryOf(ctx, tenantName)
			if err != nil {
				return nil, nil, s.toolError("classify_correction", err)
			}
			res, err := mem.Classify(ctx, in.Text, in.scope())
			if err != nil {
				return nil, nil, s.toolError("classify_correction", err)
			}
			return nil, res, nil
		})

	sdkmcp.AddTool(srv, &sdkmcp.Tool{Name: "record_correction",
		Description: "Record a user's correction to the agent as evidence on a behavioral rule. Answers with the decision: auto_match/explicit (evidence recorded), confirm (pending_id: ask the user, then resolve_confirmation) or new_rule (a candidate rule was proposed; for a text that does not say what was wrong, or a counterexample that matches no rule, nothing is recorded and reason says so: ask the user). A correction that contradicts the rule it matches is recorded as a counterexample (polarity -1), never as a reinforcement.",
		InputSchema: inputSchema[recordIn](map[string][]any{"polarity": {1, -1}})},
		func(ctx context.Context, _ *sdkmcp.CallToolRequest, in recordIn) (*sdkmcp.CallToolResult, any, error) {
			mem, err := s.memoryOf(ctx, tenantName)
			if err != nil {
				return nil, nil, s.toolError("record_correction", err)
			}
			corr, err := in.correction()
			if err == nil {
				var resp any
				resp, _, err = mem.Record(ctx, corr)
				if err == nil {
					return nil, resp, nil
				}
			}
			return nil, nil, s.toolError("record_correction", err)
		})

	sdkmcp.AddTool(srv, &sdkmcp.Tool{Name: "get_persona", Annotations: ro,
		Description: "Get the behavioral rules active for a context: the Markdown block to follow (format prompt, the default) or the whole snapshot (format json).",
		InputSchema: inputSchema[personaIn](map[string][]any{"format": {"prompt", "json"}})},
		func(ctx context.Context, _ *sdkmcp.CallToolRequest, in personaIn) (*sdkmcp.CallToolResult, any, error) {
			mem, err := s.memoryOf(ctx, tenantName)
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
			return &sdkmcp.CallToolResult{Content: []sdkmcp.Content{&sdkmcp.TextContent{Text: snap.Prompt}}}, nil, nil
		})

	sdkmcp.AddTool(srv, &sdkmcp.Tool{Name: "list_rules", Annotations: ro,
		Description: "List rules with their confidence and state, optionally only those of a category or status, or that apply in a context (scope fields).",
		InputSchema: inputSchema[listRulesIn](map[string][]any{"status": statuses})},
		func(ctx context.Context, _ *sdkmcp.CallToolRequest, in listRulesIn) (*sdkmcp.CallToolResult, any, error) {
			mem, err := s.memoryOf(ctx, tenantName)
			if err != nil {
				return nil, nil, s.toolError("list_rules", err)
			}
			q := memory.RulesQuery{Category: in.Category, Status: in.Status, Limit: in.Limit, After: in.After}
			if q.Limit == 0 {
				q.Limit = defaultRules
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

	sdkmcp.AddTool(srv, &sdkmcp.Tool{Name: "explain_rule", Annotations: ro,
		Description: "Explain a rule: its text, scope, Beta evidence (alpha, beta), confidence and activation, and its receipts (every correction and change, in the order recorded; a backfill keeps its own time in at).",
		InputSchema: inputSchema[explainIn](nil)},
		func(ctx context.Context, _ *sdkmcp.CallToolRequest, in explainIn) (*sdkmcp.CallToolResult, any, error) {
			mem, err := s.memoryOf(ctx, tenantName)
			if err != nil {
				return nil, nil, s.toolError("explain_rule", err)
			}
			if in.HistoryLimit < 0 {
				return nil, nil, s.toolError("explain_rule", engine.Errorf(engine.EINVALID, "history limit %d: want 1 to %d", in.HistoryLimit, memory.MaxHistoryLimit))
			}
			out, err := mem.ExplainRule(ctx, in.RuleID, time.Time{}, in.HistoryLimit)
			if err != nil {
				return nil, nil, s.toolError("explain_rule", err)
			}
			return nil, out, nil
		})

	sdkmcp.AddTool(srv, &sdkmcp.Tool{Name: "add_rule",
		Description: "Add a behavioral rule the user states outright (\"always run go vet before saying a Go change is done\"), at the prior: it becomes active once corrections reinforce it. Answers with the rule as stored.",
		InputSchema: inputSchema[addRuleIn](map[string][]any{"severity": {"must", "should", "style"}})},
		func(ctx context.Context, _ *sdkmcp.CallToolRequest, in addRuleIn) (*sdkmcp.CallToolResult, any, error) {
			mem, err := s.memoryOf(ctx, tenantName)
			if err != nil {
				return nil, nil, s.toolError("add_rule", err)
			}
			v, err := mem.AddRule(ctx, in)
			if err != nil {
				return nil, nil, s.toolError("add_rule", err)
			}
			return nil, v, nil
		})

	sdkmcp.AddTool(srv, &sdkmcp.Tool{Name: "review_candidate",
		Description: "Accept or reject a candidate rule (one proposed from a correction, or an exception proposal) after asking the user.",
		InputSchema: inputSchema[reviewIn](map[string][]any{"action": {"accept", "reject"}})},
		func(ctx context.Context, _ *sdkmcp.CallToolRequest, in reviewIn) (*sdkmcp.CallToolResult, any, error) {
			mem, err := s.memoryOf(ctx, tenantName)
			if err != nil {
				return nil, nil, s.toolError("review_candidate", err)
			}
			v, err := mem.ReviewCandidate(ctx, in.RuleID, in.Action == "accept", time.Time{})
			if err != nil {
				return nil, nil, s.toolError("review_candidate", err)
			}
			return nil, v, nil
		})

	sdkmcp.AddTool(srv, &sdkmcp.Tool{Name: "list_confirmations", Annotations: ro,
		Description: "List the pending confirmations (corrections in the confirm band that wait for the user to say which rule they meant), oldest first, each with its id, text and scored candidates; resolve each with resolve_confirmation.",
		InputSchema: inputSchema[listConfirmationsIn](map[string][]any{"status": {
			engine.PendingOpen, engine.PendingAccepted, engine.PendingRejected, engine.PendingNewRule, "all"}})},
		func(ctx context.Context, _ *sdkmcp.CallToolRequest, in listConfirmationsIn) (*sdkmcp.CallToolResult, any, error) {
			mem, err := s.memoryOf(ctx, tenantName)
			if err != nil {
				return nil, nil, s.toolError("list_confirmations", err)
			}
			out, err := mem.ListConfirmations(ctx, in.Status, in.Limit)
			if err != nil {
				return nil, nil, s.toolError("list_confirmations", err)
			}
			return nil, out, nil
		})

	sdkmcp.AddTool(srv, &sdkmcp.Tool{Name: "resolve_confirmation",
		Description: "Resolve a pending confirmation (record_correction's pending_id): accept (evidence on rule_id, or the top candidate), reject (nothing recorded) or new (propose a new rule from the correction; refused for a counterexample, which has no rule to propose). polarity sets the direction when the user says the confirmation's (its polarity field) is wrong.",
		InputSchema: inputSchema[resolveIn](map[string][]any{"action": {"accept", "reject", "new"}, "polarity": {1, -1}})},
		func(ctx context.Context, _ *sdkmcp.CallToolRequest, in resolveIn) (*sdkmcp.CallToolResult, any, error) {
			mem, err := s.memoryOf(ctx, tenantName)
			if err != nil {
				return nil, nil, s.toolError("resolve_confirmation", err)
			}
			if in.ID <= 0 {
				return nil, nil, s.toolError("resolve_confirmation", engine.Errorf(engine.EINVALID, "id %d: want a positive pending_id", in.ID))
			}
			res, err := mem.Confirm(ctx, in.ID, in.Action, strings.TrimSpace(in.RuleID), engine.Polarity(in.Polarity), time.Time{})
			if err != nil {
				return nil, nil, s.toolError("resolve_confirmation", err)
			}
			return nil, res, nil
		})
	s.addLearnedTools(srv, tenantName, ro)
}
