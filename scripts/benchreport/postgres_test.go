package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// samplePG is store/postgres's benchmarks: SQLite and PostgreSQL side by
// side in one run.
const samplePG = `pkg: github.com/lexsona/lexsona/store/postgres
BenchmarkRecord/sqlite-2          	    9835	    115451 ns/op	      8661 records/s	   10753 B/op	     189 allocs/op
BenchmarkRecord/postgres-2        	    1648	    846292 ns/op	      1181 records/s	    9793 B/op	     137 allocs/op
BenchmarkRecord/postgres-x3-2     	    1479	    693624 ns/op	      1442 records/s	    9931 B/op	     141 allocs/op
BenchmarkPersona/sqlite-2         	    8275	    125567 ns/op	   75296 B/op	     205 allocs/op
BenchmarkPersona/postgres-2       	    4533	    301149 ns/op	   75003 B/op	     189 allocs/op
BenchmarkVisibilityClassifier/postgres-2       	       2	 501655961 ns/op	       496.0 max-ms	       495.0 visible-ms	   26572 B/op	     371 allocs/op
BenchmarkSyncDefinitions/sqlite/first-2        	       1	1063246223 ns/op	93770944 B/op	 1120374 allocs/op
BenchmarkSyncDefinitions/postgres/unchanged-2  	      20	  55139214 ns/op	21391555 B/op	  179985 allocs/op
`

func TestRenderPostgres(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go-store-pg.txt"), []byte(samplePG), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := load(dir)
	if err != nil {
		t.Fatal(err)
	}
	md := Render(in)
	for _, want := range []string{
		"| corrections recorded (16 clients per CPU, 10 rules, a transaction each) | 8661 | 1181 | 1442 | corrections/s |",
		"| persona of 200 active rules, rule cache warm | 126 | 301 | — | µs |",
		"| another instance's persona shows a rule's change, mean delay | — | — | — | µs |",
		"| another instance's classifier notices a change, mean delay | — | 495 | — | ms |",
		"| registry sync of 10,000 new definitions | 1.06 | — | — | s |",
		"| registry sync of 10,000 unchanged definitions | — | 55 | — | ms |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(md)
	}
}
