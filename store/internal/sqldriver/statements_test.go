package sqldriver

import (
	"strings"
	"testing"
)

func TestRebind(t *testing.T) {
	sqlite := Dialect{Param: NumberedParam, InOrder: "?"}
	pg := Dialect{Param: DollarParam}
	for _, tc := range []struct {
		name, in, sqlite, pg string
	}{
		{"in order", "SELECT a FROM t WHERE b = $1 AND c = $2", "SELECT a FROM t WHERE b = ? AND c = ?", "SELECT a FROM t WHERE b = $1 AND c = $2"},
		{"ten and more", "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)", "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"},
		{"repeated", "WHERE $1 = '' OR status = $1 LIMIT $2", "WHERE ?1 = '' OR status = ?1 LIMIT ?2", "WHERE $1 = '' OR status = $1 LIMIT $2"},
		{"out of order", "SET a = $2 WHERE b = $1", "SET a = ?2 WHERE b = ?1", "SET a = $2 WHERE b = $1"},
		{"none", "SELECT 1", "SELECT 1", "SELECT 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := sqlite.rebind(tc.in); got != tc.sqlite {
				t.Errorf("SQLite: %q, want %q", got, tc.sqlite)
			}
			if got := pg.rebind(tc.in); got != tc.pg {
				t.Errorf("PostgreSQL: %q, want %q", got, tc.pg)
			}
		})
	}
}

// TestStatementsDialects: each dialect's differences reach the statements
// that need them, and no $n is left in a dialect that does not use them.
func TestStatementsDialects(t *testing.T) {
	sqlite := NewStatements(Dialect{Param: NumberedParam, InOrder: "?", RuleVersion: "(stamp)", Tags: JSONTags{}})
	pg := NewStatements(Dialect{Param: DollarParam, AsText: "::text", ReturningID: true, Tags: ArrayTags{}})
	if len(sqlite.All()) != len(pg.All()) || len(pg.All()) < 40 {
		t.Fatalf("%d and %d statements", len(sqlite.All()), len(pg.All()))
	}
	for _, q := range sqlite.All() {
		if strings.Contains(q, "$") || strings.Contains(q, "RETURNING") || strings.Contains(q, "::") {
			t.Errorf("SQLite statement with PostgreSQL syntax: %s", q)
		}
	}
	for _, tc := range []struct {
		what     string
		q, wants string
	}{
		{"SQLite rule insert stamps row_version", sqlite.ruleInsert, "row_version) VALUES"},
		{"SQLite rule insert stamps row_version", sqlite.ruleInsert, ", (stamp))"},
		{"SQLite evidence stamps row_version", sqlite.ruleEvidence, "row_version = (stamp) WHERE rule_id = ?"},
		{"SQLite status stamps row_version", sqlite.ruleStatus, "row_version = (stamp) WHERE"},
		{"SQLite update stamps row_version", sqlite.ruleUpdate, "row_version = (stamp) WHERE"},
		{"PostgreSQL event insert returns its id", pg.eventInsert, "RETURNING event_id"},
		{"PostgreSQL confirmation insert returns its id", pg.pendingInsert, "RETURNING id"},
		{"PostgreSQL reads the event scope as text", pg.eventsPage, "scope::text"},
		{"PostgreSQL reads the candidates as text", pg.pendingGet, "candidates::text"},
		{"SQLite numbers a repeated argument", sqlite.embeddingPut, "rule_id = ?1 AND text_sha256 = ?3"},
	} {
		if !strings.Contains(tc.q, tc.wants) {
			t.Errorf("%s: %q lacks %q", tc.what, tc.q, tc.wants)
		}
	}
	if strings.Contains(pg.ruleUpdate, "row_version") {
		t.Errorf("PostgreSQL rule update sets row_version (its trigger stamps it): %s", pg.ruleUpdate)
	}
}
