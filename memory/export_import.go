package memory

import (
	"context"
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
// the next registry sync embeds the imported texts. The whole file is
// checked before anything is written (a reader that cannot seek, such as
// stdin, is copied to a temporary file for that), so a file it refuses
// leaves the store as it was. Errors: EINVALID for a file that is not an
// export, of a newer version than this build reads, with a bad record
// (naming it), or truncated (no end record, or counts that differ from its
// records); EUNAVAILABLE when a reader that cannot seek cannot be copied;
// the store's errors (a rule the store refuses, such as one with a bad
// scope: the rules before it are imported, and importing the fixed file
// again adds the rest).
func (s *Service) Import(ctx context.Context, r io.Reader) (ImportResult, error) {
	var res ImportResult
	rs, done, err := rewindable(r)
	if err != nil {
		return res, err
	}
	defer done()
	if err := readExport(rs, nil); err != nil {
		return res, err
	}
	if _, err := rs.Seek(0, io.SeekStart); err != nil {
		return res, engine.Errorf(engine.EUNAVAILABLE, "import: cannot read the file again after checking it: %v", err)
	}
	var (
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
	err = readExport(rs, func(l exportLine) error {
		if l.Kind != "text" && l.Kind != "event" {
			if err := flush(); err != nil {
				return err
			}
		}
		switch l.Kind {
		case "registry":
			return s.importOne(ctx, &res.Added.Registries, &res.Kept.Registries, func(tx *store.Tx) (bool, error) {
				return tx.ImportRegistry(*l.Registry)
			})
		case "config":
			return s.importOne(ctx, &res.Added.Config, &res.Kept.Config, func(tx *store.Tx) (bool, error) {
				return tx.ImportConfig(l.Key, *l.Value)
			})
		case "rule":
			rule = &store.RuleRow{Rule: *l.Rule, ArchivedBy: l.ArchivedBy, DefinitionSHA256: l.DefinitionSHA256, Registry: l.RuleRegistry}
		case "text", "event":
			if l.Text != nil {
				texts = append(texts, *l.Text)
			} else {
				events = append(events, *l.Event)
			}
		case "pending":
			pending = append(pending, *l.Pending)
		case "end":
			var n int
			err := s.db.Write(ctx, func(tx *store.Tx) error {
				var err error
				n, err = tx.ImportPending(pending)
				return err
			})
			if err != nil {
				return err
			}
			res.Added.Pending, res.Kept.Pending = n, len(pending)-n
		}
		return nil
	})
	return res, err
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
