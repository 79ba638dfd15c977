package modelimport_test

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/modelimport"
)

// TestImportReportsProgress: Import reports its four stages, counting up
// to done, and an import with nothing to write ends its step at once.
func TestImportReportsProgress(t *testing.T) {
	src := mustTinyST(t).write(t, filepath.Join(t.TempDir(), "st"))
	dst := filepath.Join(t.TempDir(), "model")
	what := "importing " + tinySpec.Name
	step := func(done int64) models.Step { return models.Step{What: what, Done: done, Total: 4} }
	for _, tc := range []struct {
		name string
		want []models.Step
	}{
		{"import", []models.Step{step(0), step(1), step(2), step(3), step(4)}},
		{"already imported", []models.Step{step(0), step(1), step(4)}},
	} {
		var got []models.Step
		mustImport(t, modelimport.Options{Source: src, Dest: dst, Spec: &tinySpec, Progress: func(s models.Step) { got = append(got, s) }})
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s: progress (-want +got):\n%s", tc.name, d)
		}
	}
}
