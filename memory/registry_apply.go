package memory

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// DefaultRegistry is the name of the registry a sync without a name is
// for: the default rule pack.
const DefaultRegistry = "default"

// maxRegistryName bounds a registry's name.
const maxRegistryName = 256

// SyncResult lists the rule ids a registry sync added, updated (definition
// changed, or restored after leaving the registry) and archived.
type SyncResult struct {
	Added    []string `json:"added"`
	Updated  []string `json:"updated"`
	Archived []string `json:"archived"`
	// Kept are ids the registry defines that the store already holds as a
	// rule created outside any registry (by the user, or from corrections):
	// that rule is left as it is, the registry's definition is not applied.
	Kept []string `json:"kept"`
}

// RegistrySync is what one registry sync writes, all in one transaction.
type RegistrySync struct {
	// Name names the registry, a source of rules of its own: the sync adds
	// and updates rules of that registry and archives only those of its
	// rules it no longer defines. "" is DefaultRegistry.
	Name string
	// Definitions are the registry's rules.
	Definitions []engine.Definition
	// Contrary, when set, gives the contrary texts of each rule the sync
	// defines but the kept ones (see SyncResult.Kept): each listed rule's
	// contrary texts become exactly those (see ReplaceTextsOf).
	Contrary func(kept []string) map[string][]string
	// YAML, when not nil, is recorded as the registry in force under Name
	// (see Registries) in the same transaction.
	YAML []byte
	// At is the time of the sync's events (zero: now).
	At time.Time
}

// SyncRegistry makes the store agree with the registry s.Name in one
// transaction: new definitions are inserted at the prior (source registry,
// registry s.Name) with a creation event; rules whose definition changed
// since the last sync get the new definition fields and texts, never
// touching their evidence, with a manual_override event; rules archived
// because they had left the registry are restored; the registry's rules
// missing from the definitions are archived (never deleted), and the rules
// of other registries are left alone. A rule created outside any registry
// (by the user, or from corrections) is never overwritten by a definition
// with its id (SyncResult.Kept); a user's edit of a registry rule stays until
// its definition changes. Each synced rule's template and example texts are
// replaced (the embeddings of removed texts go with them), its contrary
// texts too when s.Contrary is set, and s.YAML is recorded: all switch
// together, so a crash leaves the old registry or the new one, never a mix.
// On a database opened read-only it writes nothing and succeeds when s.YAML
// is already recorded under that name.
//
// Errors (nothing is written then): EINVALID (or ETOOLARGE) naming the
// first bad definition, a duplicate id or a malformed name; ECONFLICT when a
// definition's id is a rule of another registry (naming both registries)
// that has not left it; ReplaceTextsOf's for the contrary texts; on a
// read-only database whose recorded registry differs, the read-only fault
// (EUNAVAILABLE).
func ApplyRegistry(ctx context.Context, db *store.DB, s RegistrySync) (SyncResult, error) {
	name, err := registryName(s.Name)
	if err != nil {
		return SyncResult{}, err
	}
	at := atOrNow(s.At)
	checked, err := checkDefinitions(s.Definitions, at)
	if err != nil {
		return SyncResult{}, err
	}
	if s.Contrary != nil {
		if err := CheckTextsOf(store.KindContrary, s.Contrary(nil)); err != nil {
			return SyncResult{}, err
		}
	}
	res := SyncResult{Added: []string{}, Updated: []string{}, Archived: []string{}, Kept: []string{}}
	if db.ReadOnly() {
		if s.YAML != nil {
			if same, err := db.Recorded(ctx, name, s.YAML); err != nil || same {
				return res, err
			}
		}
		return res, db.Write(ctx, at, func(*store.Tx) error { return nil })
	}
	err = db.Write(ctx, at, func(tx *store.Tx) error {
		if err := applyDefinitions(tx, name, checked, at, &res); err != nil {
			return err
		}
		if s.Contrary != nil {
			if err := ReplaceTextsOf(tx, store.KindContrary, s.Contrary(res.Kept)); err != nil {
				return err
			}
		}
		if s.YAML != nil {
			return tx.PutRegistryFile(store.RegistryFile{Name: name, YAML: s.YAML, SHA256: store.TextSHA256(string(s.YAML)), SyncedAt: at})
		}
		return nil
	})
	if err != nil {
		return SyncResult{}, err
	}
	return res, nil
}

// registryName returns name, DefaultRegistry for "", or an EINVALID error
// for a name that is too long or holds control characters.
func registryName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return DefaultRegistry, nil
	}
	if len(name) > maxRegistryName {
		return "", engine.Errorf(engine.EINVALID, "registry name is %d bytes long: at most %d", len(name), maxRegistryName)
	}
	if strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return "", engine.Errorf(engine.EINVALID, "registry name %q has a control character", name)
	}
	return name, nil
}

type syncDef struct {
	rule  engine.Rule
	sha   string
	texts []kindText
}

// definitionSHA256 fingerprints what a registry defines about a rule.
func definitionSHA256(r *engine.Rule, examples []string) string {
	b, _ := json.Marshal(struct {
		C, Sev, T, Topic string
		S                engine.Scope
		E                []string
	}{r.Category, string(r.Severity), r.Text, r.Topic, r.Scope, examples})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// checkDefinitions validates every definition before anything is written.
func checkDefinitions(defs []engine.Definition, at time.Time) ([]syncDef, error) {
	out := make([]syncDef, 0, len(defs))
	seen := make(map[string]bool, len(defs))
	for i, d := range defs {
		r := engine.Rule{RuleID: d.Rule.RuleID, Category: d.Rule.Category, Severity: d.Rule.Severity, Text: d.Rule.Text,
			Scope: d.Rule.Scope, Topic: d.Rule.Topic, Alpha: 1, Beta: 1, FirstSeen: at, LastCorrection: at,
			Status: engine.StatusActiveEligible, Source: engine.SourceRegistry}
		if err := store.CheckRule(&r); err != nil {
			return nil, engine.Errorf(engine.ErrorCode(err), "definition %d (%s): %s", i+1, d.Rule.RuleID, engine.ErrorMessage(err))
		}
		if seen[r.RuleID] {
			return nil, engine.Errorf(engine.EINVALID, "definition %d: duplicate rule id %s", i+1, r.RuleID)
		}
		seen[r.RuleID] = true
		sd := syncDef{rule: r, texts: []kindText{{Kind: store.KindTemplate, Text: r.Text}}}
		examples := make([]string, 0, len(d.Examples))
		for j, ex := range d.Examples {
			ex = strings.TrimSpace(ex)
			if err := engine.ValidateText(fmt.Sprintf("definition %d (%s): example %d", i+1, r.RuleID, j+1), ex, engine.MaxRuleTextLength); err != nil {
				return nil, err
			}
			examples = append(examples, ex)
			sd.texts = append(sd.texts, kindText{Kind: store.KindExample, Text: ex})
		}
		sd.sha = definitionSHA256(&r, examples)
		out = append(out, sd)
	}
	return out, nil
}
