package mcp

import (
	"context"
	"time"

	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lexsona/lexsona/engine"
)

type (
	// listLearnedIn is list_learned's input.
	listLearnedIn struct {
		Since string `json:"since,omitempty" jsonschema:"how far back: an RFC 3339 time, or a duration back from now such as 168h (default 168h, a week)"`
		Limit int    `json:"limit,omitempty" jsonschema:"at most this many of each kind, newest first (default 100, at most 1000)"`
	}
	// retractIn is retract_event's input.
	retractIn struct {
		EventID int64 `json:"event_id" jsonschema:"the id of the event to take back (list_learned and explain_rule show event ids)"`
	}
)

// since reads list_learned's since: an RFC 3339 time or a Go duration back
// from now; "" is a week. Errors: EINVALID naming the value.
func since(v string, now time.Time) (time.Time, error) {
	if v == "" {
		return now.Add(-7 * 24 * time.Hour), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t, nil
	}
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, engine.Errorf(engine.EINVALID, "since %q: want an RFC 3339 time or a duration such as 168h", v)
}

// addLearnedTools adds list_learned and retract_event.
func (s *Server) addLearnedTools(srv *sdkmcp.Server, tenantName string, ro *sdkmcp.ToolAnnotations) {
	sdkmcp.AddTool(srv, &sdkmcp.Tool{Name: "list_learned", Annotations: ro,
		Description: "What LexSona learned recently, newest first: the evidence recorded (event id, rule and its text, direction, the words it came from, whether it was retracted), the suggestions waiting for the user's review, and every prompt the hooks captured with what it became and the correction gate's verdict.",
		InputSchema: inputSchema[listLearnedIn](nil)},
		func(ctx context.Context, _ *sdkmcp.CallToolRequest, in listLearnedIn) (*sdkmcp.CallToolResult, any, error) {
			mem, err := s.memoryOf(ctx, tenantName)
			if err != nil {
				return nil, nil, s.toolError("list_learned", err)
			}
			from, err := since(in.Since, time.Now())
			if err != nil {
				return nil, nil, s.toolError("list_learned", err)
			}
			out, err := mem.Learned(ctx, from, in.Limit)
			if err != nil {
				return nil, nil, s.toolError("list_learned", err)
			}
			return nil, out, nil
		})

	sdkmcp.AddTool(srv, &sdkmcp.Tool{Name: "retract_event",
		Description: "Take back an event recorded wrongly (a reinforcement, counterexample or confirmation; only when the user says so): its rule's evidence is recomputed without it, a statement it made is withdrawn, and the retraction is kept in the rule's history.",
		InputSchema: inputSchema[retractIn](nil)},
		func(ctx context.Context, _ *sdkmcp.CallToolRequest, in retractIn) (*sdkmcp.CallToolResult, any, error) {
			mem, err := s.memoryOf(ctx, tenantName)
			if err != nil {
				return nil, nil, s.toolError("retract_event", err)
			}
			if in.EventID <= 0 {
				return nil, nil, s.toolError("retract_event", engine.Errorf(engine.EINVALID, "event_id %d: want a positive event id", in.EventID))
			}
			out, err := mem.Retract(ctx, in.EventID, time.Time{})
			if err != nil {
				return nil, nil, s.toolError("retract_event", err)
			}
			return nil, out, nil
		})
}
