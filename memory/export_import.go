package memory

import (
	"context"
	"io"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// ImportResult says what an import added to the store and what it left
// because the store had it already (a rule id, a config key, a registry
// name, an identical pending confirmation: the store's row is kept).
// Texts are counted with their rule; events too, except those merged into
// a rule the store had (added). Rules says, for each rule the store had,
// what became of the file's events.
type ImportResult struct {
	Added ExportCounts `json:"added"`
	Kept  ExportCounts `json:"kept"`
	Rules []RuleImport `json:"rules_kept"`
	// Redacted counts the secrets the file held (in correction texts, agent
	// output, event details, statements, rule texts, registries' YAML),
	// replaced by placeholders before anything was stored, as Record,
	// AddRule and a registry sync replace them.
	Redacted int `json:"redacted"`
}

// CheckedExport is an export read and checked whole by CheckExport, ready
// for ImportChecked. Close it when done.
type CheckedExport struct {
	rs   io.ReadSeeker
	done func()
	// retracted is scanRetractions' map of the file.
	retracted map[int64]string
	// Counts are the file's records.
	Counts ExportCounts
}

// Close releases the file's copy, if CheckExport made one.
func (c *CheckedExport) Close() {
	if c.done != nil {
		c.done()
		c.done = nil
	}
}

// CheckExport reads an export (see Export) from r and checks every record
// as the store checks what it imports, times against now, and replays
// every rule's history from its prior (see checker), without opening any
// store: a front end calls it before it opens (or creates) the store to
// import into, so that a file it refuses leaves no trace. It streams the
// file twice (the retractions it holds, then everything), holding a line
// and one rule's running state at a time. A reader that cannot seek, such
// as stdin, is copied to a temporary file (mode 0600, removed by Close) to
// be read again by ImportChecked. Errors: EINVALID
// (or ETOOLARGE) naming the line of a file that is not an export, of a
// newer version than this build reads, with a bad record (and what is
// wrong with it), or truncated (no end record, or counts that differ from
// its records); EUNAVAILABLE when r cannot be read or copied.
func CheckExport(r io.Reader, now time.Time) (*CheckedExport, error) {
	rs, done, err := rewindable(r)
	if err != nil {
		return nil, err
	}
	c := &CheckedExport{rs: rs, done: done, retracted: scanRetractions(rs)}
	if _, err := rs.Seek(0, io.SeekStart); err != nil {
		c.Close()
		return nil, engine.Errorf(engine.EUNAVAILABLE, "import: cannot read the file again: %v", err)
	}
	err = readExport(rs, newChecker(now, c.retracted, false), func(rec importRecord) error {
		switch rec.kind {
		case "registry":
			c.Counts.Registries++
		case "config":
			c.Counts.Config++
		case "rule":
			c.Counts.Rules++
		case "text":
			c.Counts.Texts++
		case "event":
			c.Counts.Events++
		case "pending":
			c.Counts.Pending++
		}
		return nil
	})
	if err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Import checks an export (CheckExport, times against the service's clock)
// and imports it (ImportChecked) keeping the rules the store has as they
// are. Its errors are theirs.
func (s *Service) Import(ctx context.Context, r io.Reader) (ImportResult, error) {
	c, err := CheckExport(r, s.now())
	if err != nil {
		return ImportResult{}, err
	}
	defer c.Close()
	return s.ImportChecked(ctx, c, ImportOptions{})
}

// ImportChecked loads a checked export into the store, which may be empty
// or not, in one transaction: the registries, config overrides, each rule
// with its texts and events, and the pending confirmations. What the store
// has already is kept (see ImportResult); of a rule it has, the file's
// events are compared with its own and, with opts.Merge, those it lacks
// are appended (see ImportOptions). Running it twice changes nothing the
// second time. Vectors are not in an export: the next registry sync
// embeds the imported texts. The file is read again, checked and replayed
// again as it is written, streaming (the reading and checking in a
// goroutine of their own, pipeline): rows go to the store in batches of
// at most importBatch records (importBatchBytes of text), so memory does
// not grow with the file's events. A retraction keeps its link to the
// event it retracts, renumbered to the store's ids. Any error rolls the
// whole import back, so a file it refuses leaves the store as it was.
// Errors: CheckExport's (the file changed since it was checked);
// EUNAVAILABLE when the file cannot be rewound; the store's.
func (s *Service) ImportChecked(ctx context.Context, c *CheckedExport, opts ImportOptions) (ImportResult, error) {
	var res ImportResult
	err := s.db.Write(ctx, s.Now(), func(tx *store.Tx) error {
		res = ImportResult{Rules: []RuleImport{}}
		if _, err := c.rs.Seek(0, io.SeekStart); err != nil {
			return engine.Errorf(engine.EUNAVAILABLE, "import: cannot read the file again after checking it: %v", err)
		}
		chk := newChecker(s.now(), c.retracted, true)
		w := &importWriter{tx: tx, chk: chk, opts: opts, at: s.now().UTC(), res: &res}
		return pipeline(func(on func(importRecord) error) error { return readExport(c.rs, chk, on) }, w.write)
	})
	if err != nil {
		return ImportResult{}, err
	}
	return res, nil
}

// count counts an import of one row as added or kept, unless it failed.
func count(added bool, err error, a, k *int) {
	switch {
	case err != nil:
	case added:
		*a++
	default:
		*k++
	}
}
