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

// importRecord is one checked record of an export, in normal form: a
// registry, a config override, a rule with its texts and events, a pending
// confirmation, or the end record.
type importRecord struct {
	line     int // where the record starts in the file (1-based)
	kind     string
	registry store.RegistryFile
	key      string
	value    string
	rule     *ruleRecords
	pending  engine.Pending
	redacted int // secrets replaced by placeholders in this record
}

// ruleRecords is a rule record with the text and event records that follow
// it.
type ruleRecords struct {
	row           store.RuleRow
	texts         []store.RuleText
	events        []engine.Event
	lastEventLine int
}

// readExport reads an export from r and checks all of it: the header
// (format and version), every record's kind and content (checker), texts
// and events that follow a rule, the end record's counts against the
// records read, and nothing after it. It calls on (when not nil) with each
// record after the header, in order, a rule once its texts and events are
// read, the end record last and only once the counts match. Errors:
// EINVALID or ETOOLARGE naming the line of a file that is not an export,
// of a newer version than this build reads, with a bad record (and what is
// wrong with it), or truncated (no end record, or counts other than its
// records'); EUNAVAILABLE when r cannot be read; on's errors.
func readExport(r io.Reader, chk *checker, on func(importRecord) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxExportLine)
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
	var (
		seen ExportCounts
		rule *importRecord // the rule whose texts and events are being read
	)
	flush := func() error {
		if rule == nil {
			return nil
		}
		rec := *rule
		rule = nil
		if err := chk.ruleRecords(rec.line, rec.rule); err != nil {
			return err
		}
		return emit(rec)
	}
	for {
		l, ok, err := next()
		if err != nil {
			return err
		}
		if !ok {
			return engine.Errorf(engine.EINVALID, "import: the export ends at line %d without its end record: the file is truncated", line)
		}
		bad := func(what string) error {
			return engine.Errorf(engine.EINVALID, "import: line %d: %s", line, what)
		}
		if l.Kind != "text" && l.Kind != "event" {
			if err := flush(); err != nil {
				return err
			}
		}
		rec := importRecord{line: line, kind: l.Kind}
		switch l.Kind {
		case "registry":
			if l.Registry == nil {
				return bad("a registry record without its registry")
			}
			rec.registry = *l.Registry
			if err := chk.registry(line, &rec.registry); err != nil {
				return err
			}
			seen.Registries++
		case "config":
			if l.Key == "" || l.Value == nil {
				return bad("a config record without its key or value")
			}
			rec.key, rec.value = l.Key, *l.Value
			if err := chk.config(line, rec.key, rec.value); err != nil {
				return err
			}
			seen.Config++
		case "rule":
			if l.Rule == nil {
				return bad("a rule record without its rule")
			}
			rec.rule = &ruleRecords{row: store.RuleRow{Rule: *l.Rule, ArchivedBy: l.ArchivedBy, DefinitionSHA256: l.DefinitionSHA256, Registry: l.RuleRegistry}}
			n, err := chk.rule(line, &rec.rule.row)
			if err != nil {
				return err
			}
			rec.redacted = n
			rule = &rec
			seen.Rules++
		case "text", "event":
			if rule == nil || (l.Text == nil && l.Event == nil) {
				return bad("a " + l.Kind + " record that follows no rule")
			}
			rr := rule.rule
			if l.Text != nil {
				n, err := chk.text(line, &rr.row, l.Text)
				if err != nil {
					return err
				}
				rr.texts = append(rr.texts, *l.Text)
				rule.redacted += n
				seen.Texts++
			} else {
				n, err := chk.event(line, rr.row.RuleID, l.Event)
				if err != nil {
					return err
				}
				rr.events = append(rr.events, *l.Event)
				rr.lastEventLine = line
				rule.redacted += n
				seen.Events++
			}
			continue
		case "pending":
			if l.Pending == nil {
				return bad("a pending record without its confirmation")
			}
			rec.pending = *l.Pending
			n, err := chk.pending(line, &rec.pending)
			if err != nil {
				return err
			}
			rec.redacted = n
			seen.Pending++
		case "end":
			if l.Counts == nil || *l.Counts != seen {
				return engine.Errorf(engine.EINVALID, "import: the end record (line %d) counts other records than the file holds: the file is truncated or was edited", line)
			}
			if err := trailing(next); err != nil {
				return err
			}
			return emit(rec)
		default:
			return bad("unknown kind " + l.Kind)
		}
		if l.Kind != "rule" {
			if err := emit(rec); err != nil {
				return err
			}
		}
	}
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
