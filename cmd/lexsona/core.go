package main

import (
	"context"
	"errors"
	"io"
	"os"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/registry"
	"github.com/lexsona/lexsona/store"
)

// core is what every command that embeds or classifies needs: the store, the
// embedder, the registry in force (synced and embedded), and a classifier.
type core struct {
	db   *store.DB
	emb  models.Embedder
	reg  *registry.Registry
	sync registry.Summary
	clf  *classifier.Classifier
}

// openEmbedder opens the embedder the global flags choose (--embedder,
// --model-dir, --ort-lib), once per command.
func (a *app) openEmbedder(ctx context.Context) (models.Embedder, error) {
	if a.emb != nil {
		return a.emb, nil
	}
	emb, err := models.Open(ctx, models.Options{
		Backend: a.embedder, ModelDir: a.modelDir, Variant: a.variant, OrtLib: a.ortLib, Logger: a.logger(),
	})
	if err != nil {
		return nil, err
	}
	a.emb = emb
	return emb, nil
}

// openFittedEmbedder is openEmbedder for commands that embed without
// classifying (embed): an embedder that is fitted to a corpus (lexical: its
// IDF, part of its identity) is fitted on the registry in force, exactly as
// openCore and the server do, so that its vectors and identity are theirs.
func (a *app) openFittedEmbedder(ctx context.Context) (models.Embedder, error) {
	emb, err := a.openEmbedder(ctx)
	if err != nil {
		return nil, err
	}
	f, ok := emb.(models.Fitter)
	if !ok {
		return emb, nil
	}
	db, err := a.openDB(ctx)
	if err != nil {
		return nil, err
	}
	name, data, err := a.registryInForce(ctx, db)
	if err != nil {
		return nil, err
	}
	reg, err := registry.Parse(data, name)
	if err != nil {
		return nil, err
	}
	f.Fit(reg.Texts())
	return emb, nil
}

// registryInForce is the registry --registry names, else the one in force in
// the store (see registry.InForce).
func (a *app) registryInForce(ctx context.Context, db *store.DB) (name string, data []byte, err error) {
	if a.registry != "" {
		data, err := readRegistryFile(a.registry)
		return a.registry, data, err
	}
	return registry.InForce(ctx, db)
}

// readRegistryFile reads a registry file, refusing one over registry.MaxFileSize.
func readRegistryFile(path string) ([]byte, error) {
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

// openCore opens the store and the embedder, syncs the registry in force (a
// no-op when nothing changed; the lexical embedder is fitted on its texts
// first) and builds the classifier.
func (a *app) openCore(ctx context.Context) (*core, error) {
	db, err := a.openDB(ctx)
	if err != nil {
		return nil, err
	}
	emb, err := a.openEmbedder(ctx)
	if err != nil {
		return nil, err
	}
	name, data, err := a.registryInForce(ctx, db)
	if err != nil {
		return nil, err
	}
	reg, sum, err := registry.SyncInForce(ctx, db, emb, name, data, registry.SyncOptions{Progress: a.stderr})
	if err != nil {
		return nil, err
	}
	return &core{db: db, emb: emb, reg: reg, sync: sum, clf: classifier.New(db, emb, classifier.Options{})}, nil
}
