package eval

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/gate"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/registry"
)

// RealOptions configure a replay of the real corpus.
type RealOptions struct {
	// Side is RealTest (the held-out repositories) or RealTrain.
	Side string
	// Gates replace the shipped gates when set.
	Gates *gate.Set
	// InboxShare and InboxMin replace the configuration's inbox budget
	// when InboxShare is not 0 (negative: no bound).
	InboxShare float64
	InboxMin   int
	// Stance replaces the shipped stance model when set.
	Stance *classifier.StanceModel
}

// RealCorpus is the real corpus as a replay reads it: labels, derived
// figures and the split, from dir (eval/realprompts).
type RealCorpus struct {
	Labels  []RealLabel
	Meta    DerivedMeta
	Derived map[string]DerivedPrompt
	Split   map[string]string
}

// LoadRealCorpus reads dir's labels and dir/derived (the figures and
// split.txt). Errors: a missing or malformed file; a label with no derived
// figures or a repository with no side (the generator must run again).
func LoadRealCorpus(dir string) (*RealCorpus, error) {
	var rc RealCorpus
	var err error
	if rc.Labels, err = LoadRealLabels(dir); err != nil {
		return nil, err
	}
	der := filepath.Join(dir, "derived")
	if rc.Meta, rc.Derived, err = ReadDerived(der); err != nil {
		return nil, err
	}
	if rc.Split, err = ReadRealSplit(der); err != nil {
		return nil, err
	}
	for _, l := range rc.Labels {
		if _, ok := rc.Derived[l.SHA256]; !ok {
			return nil, fmt.Errorf("label %s:%s#%d has no derived figures: run go run ./eval/realprompts/derived", l.Repo, l.Path, l.Turn)
		}
		if _, ok := rc.Split[l.Repo]; !ok {
			return nil, fmt.Errorf("repository %s is not in %s/split.txt: run go run ./eval/realprompts/derived", l.Repo, der)
		}
	}
	return &rc, nil
}

// items returns the prompts of side as a stream, in label order.
func (rc *RealCorpus) items(side string) []StreamItem {
	var out []StreamItem
	for _, l := range rc.Labels {
		if rc.Split[l.Repo] == side {
			it := realItem(l)
			it.Text = l.SHA256 // the key of its derived figures; never a text
			out = append(out, it)
		}
	}
	return out
}

// Check reports an error unless the figures were read with emb's model
// and the registry whose YAML is regYAML.
func (rc *RealCorpus) Check(emb models.Embedder, regYAML []byte) error {
	if m := emb.Identity().ID(); rc.Meta.Model != m {
		return fmt.Errorf("the derived figures were read with %s, the embedder is %s: run go run ./eval/realprompts/derived", rc.Meta.Model, m)
	}
	if d := RegistryDigest(regYAML); rc.Meta.Registry != d {
		return fmt.Errorf("the derived figures were read against registry %.12s, this one is %.12s: run go run ./eval/realprompts/derived", rc.Meta.Registry, d)
	}
	return nil
}

// ReplayReal replays one side of the real corpus through the hook's
// capture decision: each repository one user with a store of reg embedded
// by emb, its sessions' prompts in order. Errors: Check's, the store's and
// the classifier's.
func ReplayReal(ctx context.Context, emb models.Embedder, reg *registry.Registry, regYAML []byte, rc *RealCorpus, o RealOptions) (RealReport, error) {
	if err := rc.Check(emb, regYAML); err != nil {
		return RealReport{}, err
	}
	clf, done, err := scratchClassifier(ctx, emb, reg, classifier.Options{Gates: o.Gates, Stance: o.Stance})
	if err != nil {
		return RealReport{}, err
	}
	defer done()
	cfg := engine.DefaultConfig()
	rp := newReplayer(clf, cfg)
	if o.InboxShare != 0 {
		rp.share, rp.min = max(o.InboxShare, 0), o.InboxMin
	}
	items := rc.items(o.Side)
	caps, err := rp.run(ctx, items, rc.derived)
	if err != nil {
		return RealReport{}, err
	}
	rep := realReport(o.Side, items, caps, rc.Derived)
	rep.Explicit, rep.StanceDisagree = rp.explicit, rp.disagree
	return rep, nil
}

// repos returns the repositories (writers) of items in order.
func repos(items []StreamItem) []string {
	var out []string
	for _, it := range items {
		if !slices.Contains(out, it.Writer) {
			out = append(out, it.Writer)
		}
	}
	return out
}
