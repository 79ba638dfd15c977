package memory

import (
	"context"
	"encoding/json"
	"errors"
	"io"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// ImportResult says what an import added to the store and what it left
// because the store had it already (a rule id, a config key, a registry
// name, an identical pending confirmation: the store's row is kept).
// Events and texts are counted with their rule.
type ImportResult struct {
	Added ExportCounts `json:"added"`
	Kept  ExportCounts `json:"kept"`
}

// Import loads an export (see Export) into the store, which may be empty or
// not: each rule comes with its texts and events in one transaction, the
// config overrides, registries and pending confirmations after. Running it
// twice changes nothing the second time. Vectors are not in an export:
// the next registry sync embeds the imported texts. Errors: EINVALID for a
// file that is not an export, of a newer version than this build reads, or
// with a bad record (naming its line; the records before it are imported,
// and importing the fixed file again adds the rest), or truncated (no end
// record, or counts that differ from its records); the store's errors.
func (s *Service) Import(ctx context.Context, r io.Reader) (ImportResult, error) {
	var res ImportResult
	dec := json.NewDecoder(r)
	line := 0
	next := func() (exportLine, bool, error) {
		var l exportLine
		line++
		err := dec.Decode(&l)
		if errors.Is(err, io.EOF) {
			return l, false, nil
		}
		if err != nil {
			return l, false, engine.Errorf(engine.EINVALID, "import: record %d is not a JSON object of an export: %v", line, err)
		}
		return l, true, nil
	}
	head, ok, err := next()
	if err != nil {
		return res, err
	}
	if !ok || head.Kind != "header" || head.Format != ExportFormat {
		return res, engine.Errorf(engine.EINVALID, "import: not a LexSona export (its first record is not a %s header)", ExportFormat)
	}
	if head.Version > ExportVersion {
		return res, engine.Errorf(engine.EINVALID, "import: the export is of version %d, newer than this lexsona build reads (%d): upgrade lexsona", head.Version, ExportVersion)
	}
	if head.Version < 1 {
		return res, engine.Errorf(engine.EINVALID, "import: the export has no version")
	}
	var (
		seen    ExportCounts
		rule    *store.RuleRow
		texts   []store.RuleText
		events  []engine.Event
		pending []engine.Pending
	)
	flush := func() error {
		if rule == nil {
			return nil
		}
		var added bool
		err := s.db.Write(ctx, func(tx *store.Tx) error {
			var err error
			added, err = tx.ImportRule(*rule, texts, events)
			return err
		})
		if err != nil {
			return err
		}
		c := &res.Kept
		if added {
			c = &res.Added
		}
		c.Rules, c.Texts, c.Events = c.Rules+1, c.Texts+len(texts), c.Events+len(events)
		rule, texts, events = nil, nil, nil
		return nil
	}
	bad := func(what string) error {
		return engine.Errorf(engine.EINVALID, "import: record %d: %s", line, what)
	}
	for {
		l, ok, err := next()
		if err != nil {
			return res, err
		}
		if !ok {
			return res, engine.Errorf(engine.EINVALID, "import: the export ends at record %d without its end record: the file is truncated", line)
		}
		if l.Kind != "text" && l.Kind != "event" {
			if err := flush(); err != nil {
				return res, err
			}
		}
		switch l.Kind {
		case "registry":
			if l.Registry == nil {
				return res, bad("a registry record without its registry")
			}
			seen.Registries++
			if err := s.importOne(ctx, &res.Added.Registries, &res.Kept.Registries, func(tx *store.Tx) (bool, error) {
				return tx.ImportRegistry(*l.Registry)
			}); err != nil {
				return res, err
			}
		case "config":
			if l.Key == "" || l.Value == nil {
				return res, bad("a config record without its key or value")
			}
			seen.Config++
			if err := s.importOne(ctx, &res.Added.Config, &res.Kept.Config, func(tx *store.Tx) (bool, error) {
				return tx.ImportConfig(l.Key, *l.Value)
			}); err != nil {
				return res, err
			}
		case "rule":
			if l.Rule == nil {
				return res, bad("a rule record without its rule")
			}
			seen.Rules++
			rule = &store.RuleRow{Rule: *l.Rule, ArchivedBy: l.ArchivedBy, DefinitionSHA256: l.DefinitionSHA256, Registry: l.RuleRegistry}
		case "text", "event":
			if rule == nil || (l.Text == nil && l.Event == nil) {
				return res, bad("a " + l.Kind + " record that follows no rule")
			}
			if l.Text != nil {
				seen.Texts++
				texts = append(texts, *l.Text)
			} else {
				seen.Events++
				events = append(events, *l.Event)
			}
		case "pending":
			if l.Pending == nil {
				return res, bad("a pending record without its confirmation")
			}
			seen.Pending++
			pending = append(pending, *l.Pending)
		case "end":
			if l.Counts == nil || *l.Counts != seen {
				return res, engine.Errorf(engine.EINVALID, "import: the end record counts other records than the file holds: the file is truncated or was edited")
			}
			var n int
			err := s.db.Write(ctx, func(tx *store.Tx) error {
				var err error
				n, err = tx.ImportPending(pending)
				return err
			})
			if err != nil {
				return res, err
			}
			res.Added.Pending, res.Kept.Pending = n, len(pending)-n
			return res, nil
		default:
			return res, bad("unknown kind " + l.Kind)
		}
	}
}

// importOne runs one import in its own transaction and counts it as added
// or kept.
func (s *Service) importOne(ctx context.Context, added, kept *int, fn func(tx *store.Tx) (bool, error)) error {
	var ok bool
	err := s.db.Write(ctx, func(tx *store.Tx) error {
		var err error
		ok, err = fn(tx)
		return err
	})
	if err != nil {
		return err
	}
	if ok {
		*added++
	} else {
		*kept++
	}
	return nil
}
