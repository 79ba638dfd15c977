package store_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory/memorytest"
	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/storetest"
)

// A toy driver that keeps its rows in the process's memory, written only
// here to show what a new database takes: one Kind registered (the mem://
// scheme, no named tenants) and the methods of store.Driver and
// store.DriverTx over its rows (memdriver_rows_test.go). It passes both
// contract suites. A database is named by its URL; a second Open of the
// same URL is another handle on it, as another process's would be.

func init() {
	store.Register(store.Kind{Name: "mem", Schemes: []string{"mem"}, Describe: "a mem:// URL", Open: openMem})
}

// TestMemContract runs the store's row contract over the toy driver.
func TestMemContract(t *testing.T) { storetest.Run(t, openMemStore) }

// TestMemDecisionContract runs memory's decisions over the toy driver.
func TestMemDecisionContract(t *testing.T) { memorytest.Run(t, openMemStore) }

var memSeq atomic.Int64

// openMemStore opens a new, empty toy database for one test.
func openMemStore(t *testing.T) *store.DB {
	db, err := store.OpenWith(context.Background(), fmt.Sprintf("mem://test-%d", memSeq.Add(1)), store.Options{Clock: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// memDatabases are the toy databases by URL.
var memDatabases sync.Map // string → *memDB

func openMem(_ context.Context, dsn string, _ store.Options) (store.Driver, error) {
	fresh := &memDB{}
	fresh.cur.Store(newMemState())
	db, _ := memDatabases.LoadOrStore(dsn, fresh)
	return memDriver{db: db.(*memDB), dsn: dsn}, nil
}

// memDB is one database: its committed state, which is never changed once
// stored (a write changes a copy and stores it), and the lock writers
// take in turn.
type memDB struct {
	writeMu sync.Mutex
	cur     atomic.Pointer[memState]
}

// memState is every row of a database.
type memState struct {
	rules      map[string]memRule
	removed    []memRemoved
	events     []engine.Event // event id i+1 at i
	retracted  map[int64]int64
	captures   []store.CaptureEntry
	rejections map[[2]string]bool // (parent, tag)
	aliases    map[string]string  // old id → rule id
	texts      map[[2]string]store.RuleText
	vectors    map[[3]string][]float32 // (rule, model, sha)
	pending    []engine.Pending        // id i+1 at i
	idem       map[string]memKey
	config     map[string]string
	registries map[string]store.RegistryFile
	versions   store.Versions
	nextID     int64 // of captures
}

type memRule struct {
	row     store.RuleRow
	version int64
}

type memRemoved struct {
	id      string
	version int64
}

type memKey struct {
	row store.IdempotencyRow
	at  time.Time
}

// clone copies s for a write: the maps and slices a write changes.
func (s *memState) clone() *memState {
	c := *s
	c.rules, c.retracted, c.rejections = maps.Clone(s.rules), maps.Clone(s.retracted), maps.Clone(s.rejections)
	c.aliases = maps.Clone(s.aliases)
	c.texts, c.vectors, c.idem = maps.Clone(s.texts), maps.Clone(s.vectors), maps.Clone(s.idem)
	c.config, c.registries = maps.Clone(s.config), maps.Clone(s.registries)
	c.events, c.pending = slices.Clone(s.events), slices.Clone(s.pending)
	c.removed, c.captures = slices.Clone(s.removed), slices.Clone(s.captures)
	return &c
}

// newMemState is the state of a new database.
func newMemState() *memState {
	return &memState{rules: map[string]memRule{}, retracted: map[int64]int64{}, rejections: map[[2]string]bool{},
		aliases: map[string]string{},
		texts:   map[[2]string]store.RuleText{}, vectors: map[[3]string][]float32{}, idem: map[string]memKey{},
		config: map[string]string{}, registries: map[string]store.RegistryFile{}}
}

// memDriver is a handle on a database.
type memDriver struct {
	db  *memDB
	dsn string
}

// memReader reads a state; ctx ends its reads.
type memReader struct {
	ctx context.Context
	s   func() *memState
}

// memTx is a write transaction over its own copy of the state.
type memTx struct{ memReader }

func (d memDriver) Reader(ctx context.Context) store.Reader {
	return memReader{ctx, d.db.cur.Load}
}

func (d memDriver) Read(ctx context.Context, fn func(store.Reader) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s := d.db.cur.Load()
	return fn(memReader{ctx, func() *memState { return s }})
}

func (d memDriver) Write(ctx context.Context, fn func(store.DriverTx) error) (err error) {
	if err := ctx.Err(); err != nil {
		return err
	}
	d.db.writeMu.Lock()
	defer d.db.writeMu.Unlock()
	s := d.db.cur.Load().clone()
	if err := fn(memTx{memReader{ctx, func() *memState { return s }}}); err != nil {
		return err
	}
	d.db.cur.Store(s)
	return nil
}

func (d memDriver) Location() string                 { return d.dsn }
func (memDriver) ReadOnly() bool                     { return false }
func (memDriver) Writable(ctx context.Context) error { return ctx.Err() }
func (memDriver) NoteError(error)                    {}
func (memDriver) LastFault() error                   { return nil }
func (memDriver) QuickCheck(context.Context, time.Duration) (bool, error) {
	return true, nil
}
func (memDriver) SchemaVersion(context.Context) (int, error) { return 1, nil }
func (memDriver) Migrations(context.Context) ([]store.Migration, error) {
	return []store.Migration{}, nil
}
func (memDriver) LatestSchemaVersion() int { return 1 }
func (memDriver) Close() error             { return nil }

// st returns the state to read, or the context's error.
func (r memReader) st() (*memState, error) {
	if err := r.ctx.Err(); err != nil {
		return nil, err
	}
	return r.s(), nil
}
