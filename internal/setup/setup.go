// Package setup is LexSona's composition root: the one place that opens the
// store (with its driver), the embedder, the registry in force, and builds
// the use-case layer over them. The CLI (cmd/lexsona), the server's tests
// and, through the binary, e2e assemble LexSona with it; outside tests,
// nothing else imports a store driver or an embedder backend by name.
package setup

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/datadir"
	"github.com/lexsona/lexsona/internal/tenant"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/auto"
	"github.com/lexsona/lexsona/registry"
	"github.com/lexsona/lexsona/store"

	// The store drivers built into LexSona.
	_ "github.com/lexsona/lexsona/store/postgres"
	_ "github.com/lexsona/lexsona/store/sqlite"
)

// Config says what to open. Zero fields take the defaults. Nothing is read
// from the environment: the command line fills the fields from its
// configuration (internal/config).
type Config struct {
	// DB is a SQLite file path or a PostgreSQL URL; "" means
	// store.DefaultPath() (the command line passes config.Config.DBPath()).
	DB string
	// Embedder chooses the backend and model (auto.Open's options).
	Embedder models.Options
	// Registry is a registry file to sync, as one source among those in
	// force; empty means the registries in force as they are (the default
	// pack into an empty store).
	Registry string
	// AllowEmpty lets Registry hold no rules, archiving its source's rules.
	AllowEmpty bool
	// Progress gets the registry sync's progress bar when it is a terminal.
	Progress io.Writer
	// Logger gets the store's and the embedder's diagnostics.
	Logger *slog.Logger
	// CalibrationDir is the folder searched for the embedder's calibration
	// file, where `lexsona eval calibrate` writes (the command line passes
	// config.Config.CalibrationDir()); "" means the calibration folder of
	// datadir.Fallback, where store.DefaultPath() is.
	CalibrationDir string
	// Now is the use cases' clock (time.Now when nil), the time of the
	// registry sync's events included, and the store's (store.Options.Clock).
	Now func() time.Time
	// ReadOnly opens the store for reading alone (store.Options.ReadOnly).
	ReadOnly bool
}

// clock is cfg.Now, else the time of day: the clock the composition root
// gives the use cases and the stores.
func (cfg Config) clock() func() time.Time {
	if cfg.Now != nil {
		return cfg.Now
	}
	return time.Now
}

// OpenMemory opens the store cfg.DB names (store.OpenWith) and returns the
// use cases over it with cfg's options and no embedder: what commands that
// read or edit rules without classifying use, and what Assemble completes.
// Close it when done. Errors: store.OpenWith's.
func OpenMemory(ctx context.Context, cfg Config) (*memory.Service, error) {
	dsn := cfg.DB
	if dsn == "" {
		dsn = store.DefaultPath()
	}
	db, err := store.OpenWith(ctx, dsn, store.Options{Logger: cfg.Logger, Clock: cfg.clock(), ReadOnly: cfg.ReadOnly})
	if err != nil {
		return nil, err
	}
	return MemoryOf(db, cfg), nil
}

// MemoryOf is the use cases over an open store db with cfg's options and no
// embedder (OpenMemory's, for a store the caller opened).
func MemoryOf(db *store.DB, cfg Config) *memory.Service {
	return memory.New(db, nil, memoryOptions(cfg))
}

// DriverName names the store driver that serves dsn ("sqlite", "postgres";
// "" when none built in does).
func DriverName(dsn string) string { return store.DriverName(dsn) }

// OpenEmbedder opens the embedder cfg.Embedder chooses (auto.Open).
// Errors: its.
func OpenEmbedder(ctx context.Context, cfg Config) (models.Embedder, error) {
	o := cfg.Embedder
	if o.Logger == nil {
		o.Logger = cfg.Logger
	}
	return auto.Open(ctx, o)
}

// ClassifierOptions are the classifier's options cfg gives: the
// calibration folder cfg.CalibrationDir, else datadir.Fallback's.
func ClassifierOptions(cfg Config) classifier.Options {
	dir := cfg.CalibrationDir
	if dir == "" {
		dir = datadir.Calibration(datadir.Fallback)
	}
	return classifier.Options{CalibrationDir: dir}
}

// ReadRegistryFile reads a registry file, refusing one over
// registry.MaxFileSize. Errors: EINVALID naming an unreadable file,
// ETOOLARGE naming a file over the limit.
func ReadRegistryFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, engine.Errorf(engine.EINVALID, "cannot read registry %s: %v", path, errors.Unwrap(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, registry.MaxFileSize+1))
	if err != nil {
		return nil, engine.Errorf(engine.EINVALID, "cannot read registry %s: %v", path, err)
	}
	if len(data) > registry.MaxFileSize {
		return nil, engine.Errorf(engine.ETOOLARGE, "registry %s is larger than %d bytes", path, registry.MaxFileSize)
	}
	return data, nil
}

// Core is an assembled LexSona: the embedder, the registry synced into the
// store, and the use cases over them.
type Core struct {
	Embedder models.Embedder
	Registry *registry.Registry
	Sync     memory.Summary
	Memory   *memory.Service
}

// Front is the builder a front end (the server, MCP) takes of the core's
// memory: the same store and options over the embedders it puts before the
// model.
func (c *Core) Front() tenant.MemoryFunc {
	return func(e tenant.Embedders) *memory.Service { return c.Memory.WithEmbedders(e.Classify, e.Bulk) }
}

// Assemble gives base, the use cases over a store (OpenMemory, MemoryOf),
// the embedder emb, then syncs the registry file cfg.Registry into the store
// as one of the registries in force, or readies those in force
// (memory.Service.SyncInForce: the default pack into an empty store, the
// texts still missing a vector embedded) — a corpus-dependent embedder
// (lexical) is fitted on their union either way. It opens nothing: base and
// emb stay the caller's to close. Core.Registry is the registry synced, or
// the registries in force merged. Errors: ReadRegistryFile's and those of
// memory.Service.SyncRegistry and SyncInForce.
func Assemble(ctx context.Context, base *memory.Service, emb models.Embedder, cfg Config) (*Core, error) {
	mem := base.WithEmbedders(emb, nil)
	progress, end := models.TermProgress(cfg.Progress)
	defer end()
	opts := memory.SyncOptions{Progress: progress, AllowEmpty: cfg.AllowEmpty}
	var reg *registry.Registry
	var sum memory.Summary
	var err error
	if cfg.Registry != "" {
		var data []byte
		if data, err = ReadRegistryFile(cfg.Registry); err != nil {
			return nil, err
		}
		reg, sum, err = mem.SyncRegistry(ctx, registry.Source{File: cfg.Registry, YAML: data}, opts)
	} else {
		reg, sum, err = mem.SyncInForce(ctx, opts)
	}
	if err != nil {
		return nil, err
	}
	return &Core{Embedder: emb, Registry: reg, Sync: sum, Memory: mem}, nil
}
