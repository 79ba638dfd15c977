package memory

import (
	"context"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// Page sizes of ListConfirmations.
const (
	DefaultPendingLimit = store.DefaultPendingLimit
	MaxPendingLimit     = store.MaxPendingLimit
)

// ConfirmationList is a list of confirmations, oldest first.
type ConfirmationList struct {
	Confirmations []engine.Pending `json:"confirmations"`
}

// ListConfirmations lists the confirmations of a status — pending (also
// ""), accepted, rejected, new_rule, or all — oldest first, at most limit
// (0: DefaultPendingLimit). Errors: EINVALID naming a bad status or limit.
func (s *Service) ListConfirmations(ctx context.Context, status string, limit int) (ConfirmationList, error) {
	switch status {
	case "":
		status = engine.PendingOpen
	case "all":
		status = ""
	case engine.PendingOpen, engine.PendingAccepted, engine.PendingRejected, engine.PendingNewRule:
	default:
		return ConfirmationList{}, engine.Errorf(engine.EINVALID, "confirmation status %q: want pending, accepted, rejected, new_rule or all", status)
	}
	if limit < 0 || limit > MaxPendingLimit {
		return ConfirmationList{}, engine.Errorf(engine.EINVALID, "limit %d: want 1 to %d", limit, MaxPendingLimit)
	}
	ps, err := s.db.ListPending(ctx, status, limit)
	if err != nil {
		return ConfirmationList{}, err
	}
	if ps == nil {
		ps = []engine.Pending{}
	}
	return ConfirmationList{Confirmations: ps}, nil
}
