package memory

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// maxExportLine bounds one line of an export: an event's text and agent
// output (1 MiB each) or a registry's YAML (16 MiB, base64), escaped.
const maxExportLine = 64 << 20

// Kinds of importRecord beyond those of the export's lines: the end of a
// rule's records (its texts and events), once its history is checked.
const kindRuleEnd = "rule-end"

// importRecord is one checked record of an export, in normal form: a
// registry, a config override, a rule, one of its texts or events, the
// end of its records, a rule's alias, a pending confirmation, or the end
// record.
type importRecord struct {
	line     int // where the record starts in the file (1-based)
	kind     string
	registry store.RegistryFile
	key      string
	value    string
	rule     store.RuleRow
	text     store.RuleText
	event    engine.Event
	step     engine.ReplayStep // what the event did to its rule
	alias    store.RuleAlias
	pending  engine.Pending
	redacted int // secrets replaced by placeholders in this record
}

// readExport reads an export from r and checks all of it as it streams:
// the header (format and version), every record's kind and content
// (checker), texts and events that follow a rule, each rule's history
// replayed from its prior, the end record's counts against the records
// read, and nothing after it. It calls on (when not nil) with each record
// after the header, in order — a rule's texts and events after it, then
// a rule-end record once its history is checked — and with the end record
// last, only once the counts match. It holds one line and the running
// state of one rule at a time. Errors: EINVALID or ETOOLARGE naming the
// line of a file that is not an export, of a newer version than this
// build reads, with a bad record (and what is wrong with it), or
// truncated (no end record, or counts other than its records');
// EUNAVAILABLE when r cannot be read; on's errors.
func readExport(r io.Reader, chk *checker, on func(importRecord) error) error {
	sc := newLineScanner(r)
	line := 0
	next := func() (exportLine, bool, error) {
		for sc.Scan() {
			line++
			b := sc.Bytes()
			if len(bytes.TrimSpace(b)) == 0 {
				continue
			}
			var l exportLine
			if err := json.Unmarshal(b, &l); err != nil {
				return l, false, engine.Errorf(engine.EINVALID, "import: line %d is not a JSON object of an export: %v", line, err)
			}
			return l, true, nil
		}
		if err := sc.Err(); err != nil {
			if errors.Is(err, bufio.ErrTooLong) {
				return exportLine{}, false, engine.Errorf(engine.ETOOLARGE, "import: line %d is longer than %d MiB: not a LexSona export", line+1, maxExportLine>>20)
			}
			return exportLine{}, false, engine.Errorf(engine.EUNAVAILABLE, "import: cannot read the file: %v", err)
		}
		return exportLine{}, false, nil
	}
	head, ok, err := next()
	if err != nil {
		return err
	}
	if !ok || head.Kind != "header" || head.Format != ExportFormat {
		return engine.Errorf(engine.EINVALID, "import: not a LexSona export (its first record is not a %s header)", ExportFormat)
	}
	if head.Version > ExportVersion {
		return engine.Errorf(engine.EINVALID, "import: the export is of version %d, newer than this lexsona build reads (%d): upgrade lexsona", head.Version, ExportVersion)
	}
	if head.Version < 1 {
		return engine.Errorf(engine.EINVALID, "import: the export has no version")
	}
	emit := func(rec importRecord) error {
		if on == nil {
			return nil
		}
		return on(rec)
	}
	var seen ExportCounts
	for {
		l, ok, err := next()
		if err != nil {
			return err
		}
		if !ok {
			return engine.Errorf(engine.EINVALID, "import: the export ends at line %d without its end record: the file is truncated", line)
		}
		if l.Kind != "text" && l.Kind != "event" && chk.inRule() {
			if err := chk.ruleEnd(); err != nil {
				return err
			}
			if err := emit(importRecord{line: line, kind: kindRuleEnd}); err != nil {
				return err
			}
		}
		rec, err := readRecord(chk, line, l, &seen)
		if err != nil {
			return err
		}
		if l.Kind == "end" {
			if l.Counts == nil || *l.Counts != seen {
				return engine.Errorf(engine.EINVALID, "import: the end record (line %d) counts other records than the file holds: the file is truncated or was edited", line)
			}
			if err := trailing(next); err != nil {
				return err
			}
		}
		if err := emit(rec); err != nil {
			return err
		}
		if l.Kind == "end" {
			return nil
		}
	}
}

// readRecord checks line l, the record at line, and counts it in seen.
func readRecord(chk *checker, line int, l exportLine, seen *ExportCounts) (importRecord, error) {
	bad := func(what string) error {
		return engine.Errorf(engine.EINVALID, "import: line %d: %s", line, what)
	}
	rec := importRecord{line: line, kind: l.Kind}
	var err error
	switch l.Kind {
	case "registry":
		if l.Registry == nil {
			return rec, bad("a registry record without its registry")
		}
		rec.registry = *l.Registry
		rec.redacted, err = chk.registry(line, &rec.registry)
		seen.Registries++
	case "config":
		if l.Key == "" || l.Value == nil {
			return rec, bad("a config record without its key or value")
		}
		rec.key, rec.value = l.Key, *l.Value
		err = chk.config(line, rec.key, rec.value)
		seen.Config++
	case "rule":
		if l.Rule == nil {
			return rec, bad("a rule record without its rule")
		}
		rec.rule = store.RuleRow{Rule: *l.Rule, ArchivedBy: l.ArchivedBy, DefinitionSHA256: l.DefinitionSHA256, Registry: l.RuleRegistry}
		rec.redacted, err = chk.rule(line, &rec.rule)
		seen.Rules++
	case "text", "event":
		if !chk.inRule() || (l.Text == nil && l.Event == nil) {
			return rec, bad("a " + l.Kind + " record that follows no rule")
		}
		if l.Text != nil {
			rec.kind, rec.text = "text", *l.Text
			rec.redacted, err = chk.text(line, &rec.text)
			seen.Texts++
		} else {
			rec.kind, rec.event = "event", *l.Event
			rec.step, rec.redacted, err = chk.event(line, &rec.event)
			seen.Events++
		}
	case "alias":
		if l.Alias == nil {
			return rec, bad("an alias record without its alias")
		}
		rec.alias = *l.Alias
		err = chk.alias(line, rec.alias)
		seen.Aliases++
	case "pending":
		if l.Pending == nil {
			return rec, bad("a pending record without its confirmation")
		}
		rec.pending = *l.Pending
		rec.redacted, err = chk.pending(line, &rec.pending)
		seen.Pending++
	case "end":
	default:
		return rec, bad("unknown kind " + l.Kind)
	}
	return rec, err
}

// trailing refuses a record after the end record.
func trailing(next func() (exportLine, bool, error)) error {
	_, ok, err := next()
	if err != nil {
		return err
	}
	if ok {
		return engine.Errorf(engine.EINVALID, "import: the file goes on after its end record: it is not one export")
	}
	return nil
}

// newLineScanner scans r's lines, each at most maxExportLine long.
func newLineScanner(r io.Reader) *bufio.Scanner {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxExportLine)
	return sc
}

// scanRetractions reads an export and returns, for each event a
// retraction in it names (engine.RetractedEventID), the id of the rule
// whose history holds the retraction: readExport's replay keeps what it
// needs of those events, and of no other, until their retraction. It
// decodes only the lines that can be retractions and ignores what it
// cannot read: readExport reports it.
func scanRetractions(r io.Reader) map[int64]string {
	out := map[int64]string{}
	sc := newLineScanner(r)
	for sc.Scan() {
		b := sc.Bytes()
		if !bytes.Contains(b, []byte(`"manual_override"`)) || !bytes.Contains(b, []byte(`retracted event `)) {
			continue
		}
		var l exportLine
		if json.Unmarshal(b, &l) != nil || l.Event == nil {
			continue
		}
		if id, ok := engine.RetractedEventID(*l.Event); ok {
			out[id] = l.Event.RuleID
		}
	}
	return out
}

// rewindable returns r ready to be read twice: r itself when it can seek,
// else a copy of it in a temporary file (mode 0600, removed by done).
// Errors: EUNAVAILABLE when the copy cannot be written.
func rewindable(r io.Reader) (rs io.ReadSeeker, done func(), err error) {
	if s, ok := r.(io.ReadSeeker); ok {
		if pos, err := s.Seek(0, io.SeekCurrent); err == nil {
			return &offsetSeeker{s, pos}, func() {}, nil
		}
	}
	f, err := os.CreateTemp("", "lexsona-import-*.jsonl")
	if err != nil {
		return nil, nil, engine.Errorf(engine.EUNAVAILABLE, "import: cannot keep a copy of the input to check it first: %v", err)
	}
	done = func() { f.Close(); os.Remove(f.Name()) }
	if _, err := io.Copy(f, r); err != nil {
		done()
		return nil, nil, engine.Errorf(engine.EUNAVAILABLE, "import: cannot keep a copy of the input to check it first: %v", err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		done()
		return nil, nil, engine.Errorf(engine.EUNAVAILABLE, "import: cannot read back the copy of the input: %v", err)
	}
	return f, done, nil
}

// offsetSeeker is a ReadSeeker whose start is where its reader stood when
// handed over: rewinding returns there, not to the stream's beginning.
type offsetSeeker struct {
	io.ReadSeeker
	start int64
}

func (o *offsetSeeker) Seek(offset int64, whence int) (int64, error) {
	if whence == io.SeekStart {
		offset += o.start
	}
	n, err := o.ReadSeeker.Seek(offset, whence)
	return n - o.start, err
}
