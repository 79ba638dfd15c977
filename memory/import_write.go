package memory

import (
	"errors"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// An import writes rows in batches of at most importBatch records, or
// fewer once their texts reach importBatchBytes.
const (
	importBatch      = 256
	importBatchBytes = 4 << 20
)

// pipelineDepth is how many checked records may wait for the writer.
const pipelineDepth = 16

// errPipelineStopped stops a reader whose writer failed.
var errPipelineStopped = errors.New("memory: import pipeline stopped")

// pipeline runs read, which hands each record to its on, in a goroutine
// of its own, and write on each record in the caller's, at most
// pipelineDepth records apart: reading, checking and redacting the file
// overlap with the store's writes. It returns write's first error (the
// reader then stops), else read's.
func pipeline(read func(on func(importRecord) error) error, write func(importRecord) error) error {
	recs := make(chan importRecord, pipelineDepth)
	stop := make(chan struct{})
	var readErr error
	go func() {
		defer close(recs)
		readErr = read(func(rec importRecord) error {
			select { // stopped first: the drain below makes room for sends
			case <-stop:
				return errPipelineStopped
			default:
			}
			select {
			case recs <- rec:
				return nil
			case <-stop:
				return errPipelineStopped
			}
		})
	}()
	defer func() { // on an error or a panic of write, stop the reader and wait for it
		close(stop)
		for range recs {
		}
	}()
	for rec := range recs {
		if err := write(rec); err != nil {
			return err
		}
	}
	return readErr
}

// importWriter writes the checked records of an export (readExport) in
// one transaction as they stream: a rule the store does not have is
// inserted, then its texts and events in batches; a rule it has is kept
// (ruleKeeper); pending confirmations go in batches too.
type importWriter struct {
	tx   *store.Tx
	chk  *checker
	opts ImportOptions
	at   time.Time
	res  *ImportResult

	rule    *ruleWriter
	pending *pendingImport
	pend    []engine.Pending
	pendLen int
}

// ruleWriter is a rule being imported: its batches of texts and events
// and, for the events a later retraction names, their ids here.
type ruleWriter struct {
	id      string
	texts   []store.RuleText
	events  []engine.Event
	fileIDs []int64 // the file's ids of events
	size    int     // bytes of text in the batches
	ids     map[int64]int64
	keep    *ruleKeeper // the store had the rule
}

// write writes one record.
func (w *importWriter) write(rec importRecord) error {
	w.res.Redacted += rec.redacted
	switch rec.kind {
	case "registry":
		ok, err := importRegistry(w.tx, rec.registry)
		count(ok, err, &w.res.Added.Registries, &w.res.Kept.Registries)
		return err
	case "config":
		ok, err := importConfig(w.tx, rec.key, rec.value)
		count(ok, err, &w.res.Added.Config, &w.res.Kept.Config)
		return err
	case "rule":
		return w.startRule(rec.rule)
	case "text":
		if w.rule.keep != nil {
			w.res.Kept.Texts++
			return nil
		}
		w.res.Added.Texts++
		w.rule.texts = append(w.rule.texts, rec.text)
		return w.grow(len(rec.text.Text))
	case "event":
		if k := w.rule.keep; k != nil {
			return k.event(rec.event, rec.step, w.chk.retractedIn(w.rule.id, rec.event.EventID))
		}
		w.res.Added.Events++
		return w.event(rec.event, rec.step)
	case kindRuleEnd:
		return w.endRule()
	case "alias":
		added, err := w.tx.PutRuleAlias(rec.alias)
		count(added, err, &w.res.Added.Aliases, &w.res.Kept.Aliases)
		return err
	case "pending":
		w.pend = append(w.pend, rec.pending)
		w.pendLen += len(rec.pending.Text) + len(rec.pending.AgentOutput)
		if len(w.pend) >= importBatch || w.pendLen >= importBatchBytes {
			return w.flushPending()
		}
	case "end":
		return w.flushPending()
	}
	return nil
}

// startRule inserts a rule the store does not have, or starts keeping
// the store's.
func (w *importWriter) startRule(row store.RuleRow) error {
	w.rule = &ruleWriter{id: row.RuleID, ids: map[int64]int64{}}
	ok, err := importRule(w.tx, row)
	if err != nil {
		return err
	}
	if ok {
		w.res.Added.Rules++
		return nil
	}
	w.res.Kept.Rules++
	w.rule.keep, err = startKeep(w.tx, row.RuleID, w.opts.Merge, w.at)
	return err
}

// event adds an event of a new rule to its batch. A retraction goes
// alone, after the batch of the event it retracts, naming that event's
// id here, and the store records the link.
func (w *importWriter) event(ev engine.Event, step engine.ReplayStep) error {
	r := w.rule
	if step.Retracts == 0 {
		r.events, r.fileIDs = append(r.events, ev), append(r.fileIDs, ev.EventID)
		return w.grow(len(ev.UserText) + len(ev.AgentOutput) + len(ev.Detail))
	}
	if err := w.flush(); err != nil {
		return err
	}
	target, ok := r.ids[step.Retracts]
	if !ok {
		return engine.Errorf(engine.EINVALID, "import: rule %s: event %d retracts event %d, which was not imported before it", r.id, ev.EventID, step.Retracts)
	}
	ev.Detail = engine.RenumberRetraction(ev, target)
	one := []engine.Event{ev}
	if err := w.tx.InsertEvents(one); err != nil {
		return err
	}
	return w.tx.InsertRetraction(target, one[0].EventID, one[0].At)
}

// grow counts n bytes into the rule's batches and writes them when full.
func (w *importWriter) grow(n int) error {
	r := w.rule
	r.size += n
	if len(r.texts)+len(r.events) >= importBatch || r.size >= importBatchBytes {
		return w.flush()
	}
	return nil
}

// flush writes the rule's batches, noting the ids here of the events a
// later retraction names.
func (w *importWriter) flush() error {
	r := w.rule
	if err := w.tx.InsertRuleTexts(r.texts); err != nil {
		return err
	}
	if err := w.tx.InsertEvents(r.events); err != nil {
		return err
	}
	for i, ev := range r.events {
		if w.chk.retractedIn(r.id, r.fileIDs[i]) {
			r.ids[r.fileIDs[i]] = ev.EventID
		}
	}
	clear(r.texts)
	clear(r.events)
	r.texts, r.events, r.fileIDs, r.size = r.texts[:0], r.events[:0], r.fileIDs[:0], 0
	return nil
}

// endRule writes what is left of the rule.
func (w *importWriter) endRule() error {
	r := w.rule
	w.rule = nil
	if r.keep == nil {
		w.rule = r
		err := w.flush()
		w.rule = nil
		return err
	}
	ri, err := r.keep.finish()
	if err != nil {
		return err
	}
	w.res.Rules = append(w.res.Rules, ri)
	w.res.Kept.Events += ri.FileEvents - ri.Merged
	w.res.Added.Events += ri.Merged
	return nil
}

// flushPending adds the batch of pending confirmations.
func (w *importWriter) flushPending() error {
	if len(w.pend) == 0 {
		return nil
	}
	if w.pending == nil {
		var err error
		if w.pending, err = startPendingImport(w.tx); err != nil {
			return err
		}
	}
	n, err := w.pending.add(w.pend)
	if err != nil {
		return err
	}
	w.res.Added.Pending += n
	w.res.Kept.Pending += len(w.pend) - n
	clear(w.pend)
	w.pend, w.pendLen = w.pend[:0], 0
	return nil
}
