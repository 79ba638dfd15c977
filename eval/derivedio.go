package eval

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/registry"
)

// DerivedFormat is the version of the derived figures' format.
const DerivedFormat = 2

// DerivedMeta is meta.json of the derived figures: the embedder model and
// the registry (SHA-256 of its YAML) they were read with, the format, how
// many prompts and shards, and the rules they name.
type DerivedMeta struct {
	Format   int    `json:"format"`
	Model    string `json:"model"`
	Registry string `json:"registry_sha256"`
	Prompts  int    `json:"prompts"`
	Shards   int    `json:"shards"`
	// Rules are the rules the figures name, by number.
	Rules []string `json:"rules"`
}

// derivedShards is how many shard files hold the figures (by the first
// hex digit of a prompt's hash), each far below the 2 MB a file may have.
const derivedShards = 16

// RegistryDigest is the SHA-256 of a registry's YAML, which derived
// figures name as the registry they were read against.
func RegistryDigest(yaml []byte) string {
	sum := sha256.Sum256(yaml)
	return hex.EncodeToString(sum[:])
}

// DeriveRealPrompts reads every labelled prompt of the real corpus in dir
// (labels.jsonl, and the texts rebuild.py wrote to dir/.texts) as the
// hook's capture would (capturedProse, then classifier.Read against reg
// embedded by emb in a scratch store). Errors: the corpus's (LoadRealStream)
// and the embedder's; a label without its text.
func DeriveRealPrompts(ctx context.Context, emb models.Embedder, reg *registry.Registry, regYAML []byte, dir string, progress io.Writer) (DerivedMeta, []DerivedPrompt, error) {
	meta := DerivedMeta{Format: DerivedFormat, Model: emb.Identity().ID(), Registry: RegistryDigest(regYAML), Shards: derivedShards}
	items, missing, err := loadRealTexts(dir)
	if err != nil {
		return meta, nil, err
	}
	if missing > 0 {
		return meta, nil, fmt.Errorf("%d labelled prompts have no text in %s/.texts: run python3 %s/rebuild.py first", missing, dir, dir)
	}
	clf, done, err := scratchClassifier(ctx, emb, reg, classifier.Options{})
	if err != nil {
		return meta, nil, err
	}
	defer done()
	var out []DerivedPrompt
	for i, it := range items {
		p, err := derive(ctx, clf, it.sha, it.text)
		if err != nil {
			return meta, nil, err
		}
		out = append(out, p)
		if progress != nil && i%250 == 249 {
			fmt.Fprintf(progress, "derived %d/%d prompts\n", i+1, len(items))
		}
	}
	meta.Prompts, meta.Rules = len(out), rulesOf(out)
	return meta, out, nil
}

// derive is the derived figures of one prompt: its route and, for prose,
// clf's reading of it. Errors: the classifier's.
func derive(ctx context.Context, clf *classifier.Classifier, sha, text string) (DerivedPrompt, error) {
	p := DerivedPrompt{SHA256: sha, English: englishShare(text)}
	prose, route := capturedProse(text)
	p.Route = route
	if route == RouteProse {
		var err error
		if p.Reading, err = clf.Read(ctx, prose); err != nil {
			return p, fmt.Errorf("prompt %s: %w", sha, err)
		}
	}
	return p, nil
}

// scratchClassifier opens a memory in a temporary folder holding reg
// embedded by emb (memory.Precompute) and returns a classifier over its
// corpus with opts (the model's default thresholds: the calibration folder
// is the empty temporary one) and what closes and removes it.
func scratchClassifier(ctx context.Context, emb models.Embedder, reg *registry.Registry, opts classifier.Options) (*classifier.Classifier, func(), error) {
	tmp, err := os.MkdirTemp("", "lexsona-scratch-*")
	if err != nil {
		return nil, nil, err
	}
	mem, err := memory.Open(ctx, filepath.Join(tmp, "scratch.db"), emb, memory.Options{Classifier: classifier.Options{CalibrationDir: tmp}})
	if err != nil {
		os.RemoveAll(tmp)
		return nil, nil, err
	}
	done := func() { mem.Close(); os.RemoveAll(tmp) }
	if _, err := mem.Precompute(ctx, reg, memory.SyncOptions{}); err != nil {
		done()
		return nil, nil, err
	}
	opts.CalibrationDir = tmp
	return classifier.New(mem.Corpus(), emb, opts), done, nil
}

// WriteDerived writes meta.json and the shards (shard-X.jsonl, lines in
// hash order) to dir, replacing what was there.
func WriteDerived(dir string, meta DerivedMeta, ps []DerivedPrompt) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	ps = slices.Clone(ps)
	sort.Slice(ps, func(i, j int) bool { return ps[i].SHA256 < ps[j].SHA256 })
	shards := make([]bytes.Buffer, derivedShards)
	t := newRuleTable(meta.Rules)
	for _, p := range ps {
		data, err := json.Marshal(encodeDerived(p, t))
		if err != nil {
			return err
		}
		b := &shards[shardOf(p.SHA256)]
		b.Write(data)
		b.WriteByte('\n')
	}
	for i := range shards {
		if err := os.WriteFile(filepath.Join(dir, shardName(i)), shards[i].Bytes(), 0o644); err != nil {
			return err
		}
	}
	data, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "meta.json"), append(data, '\n'), 0o644)
}

// ReadDerived reads the derived figures in dir, by prompt hash, their
// vectors given back for embedder model meta.Model. Errors: a missing or
// malformed file, a format this build does not read.
func ReadDerived(dir string) (DerivedMeta, map[string]DerivedPrompt, error) {
	var meta DerivedMeta
	data, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil {
		return meta, nil, err
	}
	if err := json.Unmarshal(data, &meta); err != nil {
		return meta, nil, fmt.Errorf("%s/meta.json: %w", dir, err)
	}
	if meta.Format != DerivedFormat {
		return meta, nil, fmt.Errorf("%s: derived figures of format %d, this build reads %d: run the generator again", dir, meta.Format, DerivedFormat)
	}
	out := map[string]DerivedPrompt{}
	t := newRuleTable(meta.Rules)
	for i := 0; i < meta.Shards; i++ {
		if err := eachJSONLine(filepath.Join(dir, shardName(i)), func(line []byte) error {
			var l derivedLine
			if err := json.Unmarshal(line, &l); err != nil {
				return err
			}
			p, err := decodeDerived(l, meta.Model, t)
			if err != nil {
				return err
			}
			out[p.SHA256] = p
			return nil
		}); err != nil {
			return meta, nil, err
		}
	}
	return meta, out, nil
}

func shardOf(sha string) int {
	if sha == "" {
		return 0
	}
	var n int
	fmt.Sscanf(sha[:1], "%x", &n)
	return n % derivedShards
}

func shardName(i int) string { return fmt.Sprintf("shard-%x.jsonl", i) }
