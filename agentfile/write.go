package agentfile

import (
	"bytes"
	"errors"
	"io/fs"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/atomicfile"
)

// MaxAgentFileSize bounds the AGENTS.md or CLAUDE.md WriteAgentFile reads.
const MaxAgentFileSize = 4 << 20

// WriteResult says what WriteAgentFile did.
type WriteResult struct {
	Path    string `json:"path"`
	Format  string `json:"format"`
	Created bool   `json:"created"` // the file did not exist
	Changed bool   `json:"changed"` // false: the file already held this persona and was not touched
}

// WriteAgentFile writes prompt (a snapshot's prompt block) into path in
// format: for agents-md and claude-md the managed block is replaced or
// appended (see Merge), for cursor-rule the whole file is written. When the
// result equals the file's bytes nothing is written, so the modification time
// stays. Otherwise the file is replaced atomically (a temporary file in the
// same folder, renamed over it) with its permission bits kept (0644 for a new
// file); missing parent folders are created. Errors: EINVALID for an unknown
// format, malformed markers or a path that is a folder; ETOOLARGE for a file
// over MaxAgentFileSize; EINTERNAL (naming the file and the system error) when the file cannot be read or
// written.
func WriteAgentFile(path, format, prompt string) (WriteResult, error) {
	res := WriteResult{Path: path, Format: format}
	content, err := Render(format, prompt)
	if err != nil {
		return res, err
	}
	old, mode, err := atomicfile.Read(path, MaxAgentFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		res.Created, mode = true, 0o644
	} else if err != nil {
		return res, err
	}
	if format != FormatCursorRule {
		if content, err = Merge(string(old), content); err != nil {
			return res, engine.Errorf(engine.EINVALID, "%s: %s", path, engine.ErrorMessage(err))
		}
	}
	if !res.Created && bytes.Equal(old, []byte(content)) {
		return res, nil
	}
	if err := atomicfile.Write(path, []byte(content), mode); err != nil {
		return res, err
	}
	res.Changed = true
	return res, nil
}
