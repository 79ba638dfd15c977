package main

// postgres renders the store benchmarks of store/postgres, which run the
// same workloads on SQLite and on PostgreSQL (one instance, and three on
// one database) side by side in one run.
func (in Inputs) postgres(p printer) {
	p("## SQLite and PostgreSQL side by side\n\n")
	p("`store/postgres`'s benchmarks run each workload on a SQLite file and on PostgreSQL (the throwaway cluster of `scripts/pg.sh`, on the same machine, over loopback) in one run; *PostgreSQL ×3* spreads the clients over three store instances on one database, as three `lexsona serve` would.\n\n")
	p("| workload | SQLite | PostgreSQL | PostgreSQL ×3 | unit |\n|---|---|---|---|---|\n")
	cell := func(name, unit string, scale float64, prec int) string {
		v, ok := in.Go.Metric(name, unit, -1)
		return num(v*scale, ok, prec)
	}
	// Each row reads bench/<store kind><suffix>; three marks the rows
	// measured on three instances too.
	rows := []struct {
		label, bench, suffix, unit string
		scale                      float64
		prec                       int
		out                        string
		three                      bool
	}{
		{"corrections recorded (16 clients per CPU, 10 rules, a transaction each)", "BenchmarkRecord", "", "records/s", 1, 0, "corrections/s", true},
		{"persona of 200 active rules, rule cache warm", "BenchmarkPersona", "", "ns/op", 1e-3, 0, "µs", false},
		{"another instance's persona shows a rule's change, mean delay", "BenchmarkVisibility", "", "visible-µs", 1, 0, "µs", false},
		{"another instance's classifier notices a change, mean delay", "BenchmarkVisibilityClassifier", "", "visible-ms", 1, 0, "ms", false},
		{"the same, longest delay", "BenchmarkVisibilityClassifier", "", "max-ms", 1, 0, "ms", false},
		{"registry sync of 10,000 new definitions", "BenchmarkSyncDefinitions", "/first", "ns/op", 1e-9, 2, "s", false},
		{"registry sync of 10,000 unchanged definitions", "BenchmarkSyncDefinitions", "/unchanged", "ns/op", 1e-6, 0, "ms", false},
	}
	for _, r := range rows {
		sub := func(kind string) string { return cell(r.bench+"/"+kind+r.suffix, r.unit, r.scale, r.prec) }
		three := none
		if r.three {
			three = sub("postgres-x3")
		}
		p("| %s | %s | %s | %s | %s |\n", r.label, sub("sqlite"), sub("postgres"), three, r.out)
	}
	p("\n")
}
