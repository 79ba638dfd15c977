package memory

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// The export format: JSON Lines, one record per line, each an object whose
// "kind" says what it holds:
//
//	{"kind":"header","format":"lexsona-export","version":2,"exported_at":"…","source":"sqlite:lexsona.db"}
//	{"kind":"registry","registry":{"name":…,"yaml":…(base64),"sha256":…,"synced_at":…}}
//	{"kind":"config","key":…,"value":…}
//	{"kind":"rule","rule":{…engine.Rule…},"archived_by":…,"definition_sha256":…,"registry":…}
//	{"kind":"text","text":{"rule_id":…,"kind":…,"text":…,"sha256":…}}   (after its rule)
//	{"kind":"event","event":{…engine.Event…}}                              (after its rule, oldest first)
//	{"kind":"alias","alias":{"old_id":…,"rule_id":…}}                     (after every rule, by old id)
//	{"kind":"pending","pending":{…engine.Pending…}}
//	{"kind":"end","counts":{"rules":…,…}}
//
// The header's source names the store by driver and file (or database)
// name, never by its path or host. An exception proposal comes after the
// rule it is an exception to. A rule's events are its whole history, by
// event id: an import replays it from the prior (engine.Replay), and a
// retraction's detail names the event it retracts by its event_id in the
// file. A confirmation names the rule it was resolved to only while the
// store has that rule (not once it was renamed or merged away). Vectors
// are not exported (they are recomputed from the texts); nor are
// idempotency keys. An alias is an id a rule had before a rename, or of a
// candidate merged into it (store.RuleAlias).

// ExportFormat and ExportVersion identify the format; a reader refuses a
// file of a newer version. Version 2 added the alias records; a version 1
// file reads as one without aliases.
const (
	ExportFormat  = "lexsona-export"
	ExportVersion = 2
)

// exportLine is one line of an export.
type exportLine struct {
	Kind string `json:"kind"`
	// header
	Format     string    `json:"format,omitempty"`
	Version    int       `json:"version,omitempty"`
	ExportedAt time.Time `json:"exported_at,omitzero"`
	Source     string    `json:"source,omitempty"`
	// kinds of row
	Registry *store.RegistryFile `json:"registry,omitempty"`
	Key      string              `json:"key,omitempty"`
	Value    *string             `json:"value,omitempty"`
	Rule     *engine.Rule        `json:"rule,omitempty"`
	// ArchivedBy, DefinitionSHA256 and RuleRegistry complete a rule (store.RuleRow).
	ArchivedBy       string           `json:"archived_by,omitempty"`
	DefinitionSHA256 string           `json:"definition_sha256,omitempty"`
	RuleRegistry     string           `json:"registry_name,omitempty"`
	Text             *store.RuleText  `json:"text,omitempty"`
	Event            *engine.Event    `json:"event,omitempty"`
	Alias            *store.RuleAlias `json:"alias,omitempty"`
	Pending          *engine.Pending  `json:"pending,omitempty"`
	// end
	Counts *ExportCounts `json:"counts,omitempty"`
}

// ExportCounts counts the records of an export, or what an import added
// (Added) and left because the store had it (Kept).
type ExportCounts struct {
	Registries int `json:"registries"`
	Config     int `json:"config"`
	Rules      int `json:"rules"`
	Texts      int `json:"texts"`
	Events     int `json:"events"`
	Aliases    int `json:"aliases"`
	Pending    int `json:"pending"`
}

// Export writes everything the memory holds to w in the export format, read
// in one consistent state, and returns what it wrote. Errors: w's write
// errors (internal); the store's.
func (s *Service) Export(ctx context.Context, w io.Writer) (ExportCounts, error) {
	bw := bufio.NewWriterSize(w, 1<<16)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	var n ExportCounts
	rules := map[string]bool{}
	put := func(l exportLine, count *int) error {
		if err := enc.Encode(l); err != nil {
			return fmt.Errorf("memory: write export: %w", err)
		}
		if count != nil {
			*count++
		}
		return nil
	}
	if err := put(exportLine{Kind: "header", Format: ExportFormat, Version: ExportVersion, ExportedAt: s.now().UTC(),
		Source: exportSource(s.db.Path())}, nil); err != nil {
		return n, err
	}
	err := s.db.Export(ctx, store.ExportVisitor{
		Registry: func(f store.RegistryFile) error {
			return put(exportLine{Kind: "registry", Registry: &f}, &n.Registries)
		},
		Config: func(c store.ConfigRow) error {
			return put(exportLine{Kind: "config", Key: c.Key, Value: &c.Value}, &n.Config)
		},
		Rule: func(r store.RuleRow) error {
			rules[r.RuleID] = true
			return put(exportLine{Kind: "rule", Rule: &r.Rule, ArchivedBy: r.ArchivedBy, DefinitionSHA256: r.DefinitionSHA256,
				RuleRegistry: r.Registry}, &n.Rules)
		},
		Text:  func(x store.RuleText) error { return put(exportLine{Kind: "text", Text: &x}, &n.Texts) },
		Event: func(e engine.Event) error { return put(exportLine{Kind: "event", Event: &e}, &n.Events) },
		Alias: func(a store.RuleAlias) error { return put(exportLine{Kind: "alias", Alias: &a}, &n.Aliases) },
		Pending: func(p engine.Pending) error {
			if !rules[p.RuleID] {
				p.RuleID = ""
			}
			return put(exportLine{Kind: "pending", Pending: &p}, &n.Pending)
		},
	})
	if err != nil {
		return n, err
	}
	if err := put(exportLine{Kind: "end", Counts: &n}, nil); err != nil {
		return n, err
	}
	if err := bw.Flush(); err != nil {
		return n, fmt.Errorf("memory: write export: %w", err)
	}
	return n, nil
}

// exportSource names the store at loc (store.DB.Path) without saying where
// it is: its driver and the file's base name ("sqlite:lexsona.db"), or the
// name of the database a URL names ("postgres:team"; the driver alone when
// it names none).
func exportSource(loc string) string {
	driver := store.DriverName(loc)
	u, err := url.Parse(loc)
	if err != nil || len(u.Scheme) < 2 { // a file path (C: is a drive, not a scheme)
		return driver + ":" + filepath.Base(loc)
	}
	if name := strings.Trim(u.EscapedPath(), "/"); name != "" {
		return driver + ":" + name
	}
	return driver
}
