package tenant

import (
	"context"

	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/store"
)

// MemoryOver returns the MemoryFunc of the use cases over db with opts
// (memory.New), whose embedders are the front end's: opts.Bulk is replaced
// by Embedders.Bulk.
func MemoryOver(db *store.DB, opts memory.Options) MemoryFunc {
	return func(e Embedders) *memory.Service {
		o := opts
		o.Bulk = e.Bulk
		return memory.New(db, e.Classify, o)
	}
}

// MemoryOpener opens named tenants' memories over their stores (Stores)
// with the use cases' Options (their Bulk is the front end's).
type MemoryOpener struct {
	Stores  *Stores
	Options memory.Options
}

// OpenMemory implements Opener: Stores.OpenStore, then the use cases over
// the store. Errors: Stores.OpenStore's.
func (o MemoryOpener) OpenMemory(ctx context.Context, name string, emb Embedders) (*memory.Service, error) {
	db, err := o.Stores.OpenStore(ctx, name)
	if err != nil {
		return nil, err
	}
	return MemoryOver(db, o.Options)(emb), nil
}
