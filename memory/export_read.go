package memory

import (
	"encoding/json"
	"errors"
	"io"
	"os"

	"github.com/lexsona/lexsona/engine"
)

// readExport reads an export from r and checks its whole shape: the header
// (format and version), every record's kind and content, texts and events
// that follow a rule, and the end record's counts against the records
// read. It calls on (when not nil) with each record after the header, in
// order, the end record last and only once the counts match. Errors:
// EINVALID for a file that is not an export, of a newer version than this
// build reads, with a bad record (naming it), or truncated (no end record,
// or counts other than its records'); on's errors.
func readExport(r io.Reader, on func(exportLine) error) error {
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
	bad := func(what string) error {
		return engine.Errorf(engine.EINVALID, "import: record %d: %s", line, what)
	}
	var seen ExportCounts
	inRule := false
	for {
		l, ok, err := next()
		if err != nil {
			return err
		}
		if !ok {
			return engine.Errorf(engine.EINVALID, "import: the export ends at record %d without its end record: the file is truncated", line)
		}
		switch l.Kind {
		case "registry":
			if l.Registry == nil {
				return bad("a registry record without its registry")
			}
			seen.Registries++
		case "config":
			if l.Key == "" || l.Value == nil {
				return bad("a config record without its key or value")
			}
			seen.Config++
		case "rule":
			if l.Rule == nil {
				return bad("a rule record without its rule")
			}
			seen.Rules++
		case "text", "event":
			if !inRule || (l.Text == nil && l.Event == nil) {
				return bad("a " + l.Kind + " record that follows no rule")
			}
			if l.Text != nil {
				seen.Texts++
			} else {
				seen.Events++
			}
		case "pending":
			if l.Pending == nil {
				return bad("a pending record without its confirmation")
			}
			seen.Pending++
		case "end":
			if l.Counts == nil || *l.Counts != seen {
				return engine.Errorf(engine.EINVALID, "import: the end record counts other records than the file holds: the file is truncated or was edited")
			}
		default:
			return bad("unknown kind " + l.Kind)
		}
		if l.Kind != "text" && l.Kind != "event" {
			inRule = l.Kind == "rule"
		}
		if on != nil {
			if err := on(l); err != nil {
				return err
			}
		}
		if l.Kind == "end" {
			return nil
		}
	}
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
