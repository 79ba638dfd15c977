package memory

import (
	"context"
	"time"
)

// PruneIdempotencyKeys deletes the idempotency keys of corrections stored
// before before, and returns how many it deleted: a retry with one of them
// is then recorded anew. Errors: the store's.
func (s *Service) PruneIdempotencyKeys(ctx context.Context, before time.Time) (int64, error) {
	return s.db.PruneIdempotencyKeys(ctx, s.Now(), before)
}
