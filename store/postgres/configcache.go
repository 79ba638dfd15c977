package postgres

import (
	"slices"
	"sync"

	"github.com/lexsona/lexsona/store"
)

// configCache keeps the config overrides a write transaction read, with the
// store's config counter (store_counters 'config', bumped by a trigger on
// every change of persona_config) they were read at. A write transaction
// reads the counter with its write lock (writeBackend.Begin); under the lock
// only that transaction changes the overrides, so while it has not changed
// them itself, rows cached at the same counter value are what it would read.
type configCache struct {
	mu      sync.Mutex
	valid   bool
	version int64
	rows    []store.ConfigRow
}

// get returns a copy of the rows cached at version.
func (c *configCache) get(version int64) ([]store.ConfigRow, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.valid || c.version != version {
		return nil, false
	}
	return slices.Clone(c.rows), true
}

// put caches a copy of rows read at version.
func (c *configCache) put(version int64, rows []store.ConfigRow) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.valid, c.version, c.rows = true, version, slices.Clone(rows)
}

// ConfigRows reads the config overrides; a write transaction that has not
// changed them reads them from the driver's cache when they did not change
// since it was filled.
func (x queries) ConfigRows() ([]store.ConfigRow, error) {
	r := x.C
	cached := r.p != nil && !r.p.configChanged
	if cached {
		if rows, ok := r.d.config.get(r.p.configVersion); ok {
			return rows, nil
		}
	}
	rows, err := x.Queries.ConfigRows()
	if err == nil && cached {
		r.d.config.put(r.p.configVersion, rows)
	}
	return rows, err
}
