package models_test

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/models"
)

// TestCount: a Counter reports its step from 0 to total; on a nil Progress
// it reports nothing and does not fail.
func TestCount(t *testing.T) {
	var got []models.Step
	c := models.Count(func(s models.Step) { got = append(got, s) }, "embedding rule texts", 5)
	c.Add(2)
	c.Add(3)
	want := []models.Step{{What: "embedding rule texts", Total: 5}, {What: "embedding rule texts", Done: 2, Total: 5}, {What: "embedding rule texts", Done: 5, Total: 5}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("steps (-want +got):\n%s", d)
	}
	models.Count(nil, "silent", 3).Add(3)
}

// TestTermProgressNotATerminal: a buffer, a pipe or a file gets no progress
// at all, and ending it is harmless.
func TestTermProgressNotATerminal(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "progress")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var buf bytes.Buffer
	for name, w := range map[string]io.Writer{"buffer": &buf, "file": f} {
		p, end := models.TermProgress(w)
		if p != nil {
			t.Errorf("%s: a Progress for a writer that is not a terminal", name)
		}
		p.Report(models.Step{What: "x", Done: 1, Total: 1})
		end()
	}
	if st, _ := f.Stat(); buf.Len() != 0 || st.Size() != 0 {
		t.Errorf("wrote %q to the buffer and %d bytes to the file", buf.String(), st.Size())
	}
}
