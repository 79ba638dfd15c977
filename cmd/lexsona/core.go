package main

import (
	"cmp"
	"context"

	"github.com/lexsona/lexsona/internal/setup"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/registry"
)

// core is what every command that embeds or classifies needs: the store,
// the embedder, the registry in force (synced and embedded) and the use
// cases over them (setup.Core).
type core = setup.Core

// setupConfig is the composition root's configuration from the global
// flags and the configuration: an empty --db is the configured database
// (config.Config.DBPath), the calibration folder the data folder's.
func (a *app) setupConfig() setup.Config {
	o := a.embedderOptions()
	o.Logger = a.logger()
	return setup.Config{
		DB: cmp.Or(a.dbPath, a.cfg.DBPath()), Registry: a.registry, Progress: a.stderr, Logger: a.logger(),
		CalibrationDir: a.cfg.CalibrationDir(), Embedder: o,
	}
}

// embedderOptions are the embedder's options from the global flags
// (--embedder, --model-dir, --variant, --ort-lib) and the configuration: an
// --embedder or --variant given empty is its variable's value, LEXSONA_ORT_LIB
// is looked for after --ort-lib, and the installed data folder, the
// Hugging Face cache and LEXSONA_ORT_FUSE=0 come from the environment.
func (a *app) embedderOptions() models.Options {
	return models.Options{
		Backend: cmp.Or(a.embedder, a.cfg.Embedder), ModelDir: a.modelDir, Variant: cmp.Or(a.variant, a.cfg.ModelVariant),
		OrtLib: a.ortLib, OrtLibEnv: a.cfg.ORTLib, InstallDir: a.cfg.UserDataDir(), HFHubDir: a.cfg.HFHubDir(), NoFuse: a.cfg.NoFuse,
	}
}

// openEmbedder opens the embedder the global flags choose (--embedder,
// --model-dir, --variant, --ort-lib), once per command.
func (a *app) openEmbedder(ctx context.Context) (models.Embedder, error) {
	if a.emb != nil {
		return a.emb, nil
	}
	emb, err := setup.OpenEmbedder(ctx, a.setupConfig())
	if err != nil {
		return nil, err
	}
	a.emb = emb
	return emb, nil
}

// openFittedEmbedder is openEmbedder for commands that embed without
// classifying (embed): an embedder that is fitted to a corpus (lexical: its
// IDF, part of its identity) is fitted on the registries in force — with
// --registry FILE in place of its source, as once it is synced — exactly as
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
	base, err := a.openMemory(ctx)
	if err != nil {
		return nil, err
	}
	var file *registry.Registry
	if a.registry != "" {
		if file, err = registry.Load(a.registry); err != nil {
			return nil, err
		}
	}
	union, err := base.InForceWith(ctx, file)
	if err != nil {
		return nil, err
	}
	f.Fit(union.Texts())
	return emb, nil
}

// openCore opens the store and the embedder, syncs --registry FILE or readies
// the registries in force (a no-op when nothing changed; the lexical
// embedder is fitted on their union) and builds the use cases
// (setup.Assemble).
func (a *app) openCore(ctx context.Context) (*core, error) {
	return a.assemble(ctx, a.setupConfig())
}

// assemble is openCore with cfg in place of the global flags' configuration.
func (a *app) assemble(ctx context.Context, cfg setup.Config) (*core, error) {
	base, err := a.openMemory(ctx)
	if err != nil {
		return nil, err
	}
	emb, err := a.openEmbedder(ctx)
	if err != nil {
		return nil, err
	}
	return setup.Assemble(ctx, base, emb, cfg)
}
