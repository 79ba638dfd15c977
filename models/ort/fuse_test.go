package ort

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/modeltest"
)

// mustOpenORT opens dir's model with ONNX Runtime, logging on log.
func mustOpenORT(t *testing.T, dir string, log *slog.Logger) *Embedder {
	t.Helper()
	return mustOpen(t, models.Options{ModelDir: dir, Logger: log})
}

func TestFusedGraphKeptAndReused(t *testing.T) {
	mustLib(t)
	dir := modeltest.MustModelCopy(t)
	texts := modeltest.ReferenceTexts(t)
	want := modeltest.MustEmbed(t, mustOpen(t, models.Options{ModelDir: dir, CacheSize: -1, NoFuse: true}), texts)
	if entries, _ := os.ReadDir(filepath.Join(dir, fusedDirName)); len(entries) != 0 {
		t.Fatalf("NoFuse wrote %d files into %s", len(entries), fusedDirName)
	}

	first := mustOpenORT(t, dir, nil)
	if first.fused == "" || filepath.Dir(first.fused) != filepath.Join(dir, fusedDirName) {
		t.Fatalf("fused graph %q, want one in %s", first.fused, filepath.Join(dir, fusedDirName))
	}
	st, err := os.Stat(first.fused)
	if err != nil {
		t.Fatal(err)
	}
	if d := modeltest.MaxAbsDiff(modeltest.MustEmbed(t, first, texts), want); d > 1e-5 {
		t.Errorf("fused and exported graphs differ by %.3g", d)
	}

	second := mustOpenORT(t, dir, nil)
	st2, err := os.Stat(second.fused)
	if err != nil || second.fused != first.fused || !st2.ModTime().Equal(st.ModTime()) {
		t.Fatalf("second start: fused %q (%v), want the kept %q unchanged", second.fused, err, first.fused)
	}

	if err := os.WriteFile(first.fused, []byte("damaged"), 0o644); err != nil {
		t.Fatal(err)
	}
	third := mustOpenORT(t, dir, nil)
	if third.fused != first.fused {
		t.Fatalf("after damage: fused %q", third.fused)
	}
	if b, _ := os.ReadFile(third.fused); len(b) < 1000 {
		t.Errorf("the damaged fused graph was not rebuilt (%d bytes)", len(b))
	}
	if d := modeltest.MaxAbsDiff(modeltest.MustEmbed(t, third, texts), want); d > 1e-5 {
		t.Errorf("rebuilt fused graph differs by %.3g", d)
	}
}

// TestFusedGraphStaleRemoved: a fused graph kept for another version of the
// model file goes when the current one is written.
func TestFusedGraphStaleRemoved(t *testing.T) {
	dir := modeltest.MustModelCopy(t)
	stale := filepath.Join(dir, fusedDirName, "model-bertfuse-v0-0123456789abcdef.onnx")
	modeltest.MustCopy(t, filepath.Join(dir, "config.json"), stale)
	e := mustOpenORT(t, dir, nil)
	if e.fused == "" {
		t.Fatal("not fused")
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale fused graph still there (%v)", err)
	}
}

// TestUnfusableModelRunsAsExported: a model the rewrite does not handle runs
// its graph as exported, with one log line saying why.
func TestUnfusableModelRunsAsExported(t *testing.T) {
	for _, tc := range []struct {
		name, config, why string
	}{
		{"activation", `{"hidden_size":32,"num_attention_heads":2,"num_hidden_layers":2,"intermediate_size":64,"layer_norm_eps":1e-12,"hidden_act":"relu"}`, `hidden_act \"relu\"`},
		{"no config", "", "config.json"},
		{"sizes", `{"hidden_size":64,"num_attention_heads":2,"num_hidden_layers":2,"intermediate_size":64,"layer_norm_eps":1e-12,"hidden_act":"gelu"}`, "want [*, 64]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := modeltest.MustModelCopy(t)
			if tc.config == "" {
				os.Remove(filepath.Join(dir, "config.json"))
			} else if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(tc.config), 0o644); err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			e := mustOpenORT(t, dir, slog.New(slog.NewTextHandler(&buf, nil)))
			if e.fused != "" {
				t.Fatalf("fused %q", e.fused)
			}
			if log := buf.String(); !strings.Contains(log, "not fused") || !strings.Contains(log, tc.why) {
				t.Errorf("log %q, want the reason %q", log, tc.why)
			}
			modeltest.MustEmbed(t, e, []string{"pnpm, not npm"})
		})
	}
}

// TestFuseOffByOption: Options.NoFuse, which the command line sets for
// LEXSONA_ORT_FUSE=0 (internal/config), opens the graph as exported.
func TestFuseOffByOption(t *testing.T) {
	dir := modeltest.MustModelCopy(t)
	if e := mustOpen(t, models.Options{ModelDir: dir, NoFuse: true}); e.fused != "" {
		t.Errorf("NoFuse, yet fused %q", e.fused)
	}
}

// TestFusedGraphConcurrentStarts: processes (here: goroutines) starting at
// once on a fresh model folder all end up with a working fused graph.
func TestFusedGraphConcurrentStarts(t *testing.T) {
	mustLib(t)
	dir := modeltest.MustModelCopy(t)
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			e, err := open(dir, models.Options{})
			if err == nil {
				_, err = e.Embed(context.Background(), []string{"use ripgrep"})
				e.Close()
			}
			errs <- err
		}()
	}
	deadline := time.After(time.Minute)
	for range 4 {
		select {
		case err := <-errs:
			if err != nil {
				t.Error(err)
			}
		case <-deadline:
			t.Fatal("starts did not finish")
		}
	}
	entries, _ := os.ReadDir(filepath.Join(dir, fusedDirName))
	if len(entries) != 1 {
		t.Errorf("%d files in %s, want the one fused graph", len(entries), fusedDirName)
	}
}
