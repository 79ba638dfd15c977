package store

import (
	"crypto/sha256"
	"fmt"
	"math"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// PendingImport adds exported pending confirmations in batches (Add),
// leaving out those the store has, or an earlier batch had, with the same
// text, scope, polarity and creation time. It keeps a digest of each.
type PendingImport struct {
	t    *Tx
	seen map[[sha256.Size]byte]bool
}

// ImportPending starts an import of pending confirmations into the
// store. Its errors are the store's.
func (t *Tx) ImportPending() (*PendingImport, error) {
	have, err := t.dt.ListPending("", math.MaxInt32)
	if err != nil {
		return nil, err
	}
	p := &PendingImport{t: t, seen: make(map[[sha256.Size]byte]bool, len(have))}
	for _, h := range have {
		p.seen[pendingKey(h)] = true
	}
	return p, nil
}

// pendingKey is the digest of what makes two confirmations the same.
func pendingKey(p engine.Pending) [sha256.Size]byte {
	return sha256.Sum256(fmt.Appendf(nil, "%d\x00%s\x00%s\x00%s", p.Polarity, fmtKeyTime(p.CreatedAt), scopeText(p.Scope), p.Text))
}

// Add adds exported confirmations (with new ids) that neither the store
// nor an earlier batch has and returns how many it added. A resolved one
// keeps its status, rule and time. Errors: those of CheckImportPending
// (nothing of the batch is added then); the store's.
func (p *PendingImport) Add(ps []engine.Pending) (int, error) {
	for i := range ps {
		if err := CheckImportPending(&ps[i]); err != nil {
			return 0, engine.Errorf(engine.ErrorCode(err), "pending confirmation %d: %s", ps[i].ID, engine.ErrorMessage(err))
		}
	}
	added := 0
	for _, x := range ps {
		k := pendingKey(x)
		if p.seen[k] {
			continue
		}
		p.seen[k] = true
		id, err := p.t.dt.InsertPending(x)
		if err != nil {
			return 0, err
		}
		if x.Status != engine.PendingOpen {
			if _, err := p.t.dt.ResolvePending(id, x.Status, x.RuleID, *x.ResolvedAt); err != nil {
				return 0, err
			}
		}
		added++
	}
	return added, nil
}

func fmtKeyTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
