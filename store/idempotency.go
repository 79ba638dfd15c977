package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/lexsona/lexsona/engine"
)

// MaxIdempotencyKeyLength bounds an idempotency key.
const MaxIdempotencyKeyLength = 256

func validateIdempotencyKey(key string) error {
	if key == "" {
		return engine.Errorf(engine.EINVALID, "idempotency key is empty")
	}
	if len(key) > MaxIdempotencyKeyLength {
		return engine.Errorf(engine.EINVALID, "idempotency key is %d bytes long: at most %d", len(key), MaxIdempotencyKeyLength)
	}
	if !utf8.ValidString(key) {
		return engine.Errorf(engine.EINVALID, "idempotency key is not valid UTF-8")
	}
	return nil
}

// LookupIdempotency looks key up. When it was stored with the same request
// fingerprint, it decodes the stored response into out and reports true (the
// caller replays it and writes nothing); when it is unknown it reports false.
// Errors: EINVALID for an empty or over-long key, ECONFLICT when the key was
// used with a different request.
func (t *Tx) LookupIdempotency(key, requestSHA256 string, out any) (bool, error) {
	if err := validateIdempotencyKey(key); err != nil {
		return false, err
	}
	row, found, err := t.dt.IdempotencyKey(key)
	if err != nil || !found {
		return false, err
	}
	if row.RequestSHA256 != requestSHA256 {
		return false, engine.Errorf(engine.ECONFLICT, "idempotency key %q was already used with a different request", key)
	}
	if err := json.Unmarshal(row.Response, out); err != nil {
		return false, fmt.Errorf("store: stored response of idempotency key %q: %w", key, err)
	}
	return true, nil
}

// SaveIdempotency stores resp (as JSON) under key with the request's
// fingerprint; it commits or rolls back with the transaction, so the key
// exists exactly when the work it answers for does. Errors: EINVALID for an
// empty or over-long key, ECONFLICT when the key exists.
func (t *Tx) SaveIdempotency(key, requestSHA256 string, resp any) error {
	if err := validateIdempotencyKey(key); err != nil {
		return err
	}
	b, err := json.Marshal(resp)
	if err != nil {
		return fmt.Errorf("store: encode response for idempotency key %q: %w", key, err)
	}
	if _, found, err := t.dt.IdempotencyKey(key); err != nil || found {
		if err == nil {
			err = engine.Errorf(engine.ECONFLICT, "idempotency key %q was already used", key)
		}
		return err
	}
	return t.dt.InsertIdempotencyKey(key, IdempotencyRow{RequestSHA256: requestSHA256, Response: b}, t.at)
}

// PruneIdempotencyKeys deletes, at at, the keys stored before the given
// time (after which a retry with one of them is recorded anew) and returns
// how many. Errors: internal only.
func (db *DB) PruneIdempotencyKeys(ctx context.Context, at, before time.Time) (int64, error) {
	var n int64
	err := db.Write(ctx, at, func(tx *Tx) error {
		var err error
		n, err = tx.dt.PruneIdempotencyKeys(before, tx.at)
		return err
	})
	return n, err
}
