// Package storetest is the contract every store driver keeps: Run executes
// each database-agnostic behaviour of package store, and of memory's
// decisions over it, (rules, append-only events, exact evidence under
// concurrent corrections, exceptions, pending confirmations, idempotency
// keys, registry syncs with named sources, rule texts, embeddings, config,
// snapshots and their cache) against a store a driver opens. It also holds the helpers other packages' tests share to
// open a store and record corrections.
package storetest

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/store"
)

// Opener opens a new, empty store for one test; the store is closed when
// the test ends. Path of the store it returns must open another handle on
// the same database with store.Open (as another process would).
type Opener func(t *testing.T) *store.DB

// Run runs the contract suite, each behaviour a subtest with a store of its
// own from open.
func Run(t *testing.T, open Opener) {
	for _, tc := range []struct {
		name string
		fn   func(*testing.T, Opener)
	}{
		{"CreateAndGetRule", testCreateAndGetRule},
		{"CreateRuleBadInputWritesNothing", testCreateRuleBadInputWritesNothing},
		{"GetRuleErrors", testGetRuleErrors},
		{"ListRules", testListRules},
		{"UpdateRule", testUpdateRule},
		{"RenameMovesEverything", testRenameMovesEverything},
		{"ArchiveRule", testArchiveRule},
		{"MergeRule", testMergeRule},
		{"RecordMath", testRecordMath},
		{"RecordStoresTheEvent", testRecordStoresTheEvent},
		{"RecordConcurrent", testRecordConcurrent},
		{"RecordIdempotency", testRecordIdempotency},
		{"RecordBadInputWritesNothing", testRecordBadInputWritesNothing},
		{"EventTypes", testEventTypes},
		{"HistoryPaging", testHistoryPaging},
		{"DoneContextStopsStatements", testDoneContextStopsStatements},
		{"ExceptionProposal", testExceptionProposal},
		{"RejectException", testRejectException},
		{"ExceptionStatusOnlyByReview", testExceptionStatusOnlyByReview},
		{"RejectCandidateArchivesException", testRejectCandidateArchivesException},
		{"PendingConfirmations", testPendingConfirmations},
		{"Config", testConfig},
		{"SyncDefinitions", testSyncDefinitions},
		{"SyncBadDefinitionWritesNothing", testSyncBadDefinitionWritesNothing},
		{"SyncTenThousandDefinitions", testSyncTenThousandDefinitions},
		{"SyncRegistryAllOrNothing", testSyncRegistryAllOrNothing},
		{"SyncNamedRegistries", testSyncNamedRegistries},
		{"SyncRegistryConflict", testSyncRegistryConflict},
		{"Registries", testRegistries},
		{"PlanRegistry", testPlanRegistry},
		{"ReplaceRuleTexts", testReplaceRuleTexts},
		{"EmbeddingsRoundTrip", testEmbeddingsRoundTrip},
		{"PutEmbeddingsBadInput", testPutEmbeddingsBadInput},
		{"PruneEmbeddings", testPruneEmbeddings},
		{"ScopeEditBumpsEmbeddingsVersion", testScopeEditBumpsEmbeddingsVersion},
		{"EmbeddingsVersionWithin", testEmbeddingsVersionWithin},
		{"SnapshotMatchesEngine", testSnapshotMatchesEngine},
		{"SnapshotCacheFollowsWrites", testSnapshotCacheFollowsWrites},
		{"RulesCacheStaysConsistent", testRulesCacheStaysConsistent},
		{"InstancesReplayIdempotency", testInstancesReplayIdempotency},
		{"InstancesExactEvidence", testInstancesExactEvidence},
		{"InstancesSeeChanges", testInstancesSeeChanges},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, open) })
	}
}

// OpenSQLite opens a new SQLite store in a temporary directory, closed at
// the end of the test. The caller's test binary links the SQLite driver
// (a blank import of store/sqlite).
func OpenSQLite(tb testing.TB) *store.DB {
	tb.Helper()
	return mustOpen(tb, filepath.Join(tb.TempDir(), "lexsona.db"))
}

// SQLite is OpenSQLite as an Opener, for Run.
func SQLite(t *testing.T) *store.DB { return OpenSQLite(t) }

// mustOpen opens another handle on dsn, closed at the end of the test.
func mustOpen(tb testing.TB, dsn string) *store.DB {
	tb.Helper()
	db, err := store.Open(context.Background(), dsn)
	if err != nil {
		tb.Fatalf("store.Open(%s): %v", dsn, err)
	}
	tb.Cleanup(func() {
		if err := db.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	return db
}

// Record normalises and records one correction the way a use case does, in one write
// transaction: with an idempotency key, a retry of the same correction
// (whatever its time) returns the first result with replayed=true and
// writes nothing. Errors: memory.ApplyCorrection's, LookupIdempotency's.
func Record(ctx context.Context, db *store.DB, c engine.Correction) (res memory.RecordResult, replayed bool, err error) {
	if err := c.Normalize(); err != nil {
		return memory.RecordResult{}, false, err
	}
	var sum string
	if c.IdempotencyKey != "" {
		fp := c
		fp.At, fp.IdempotencyKey = time.Time{}, ""
		b, err := json.Marshal(fp)
		if err != nil {
			return memory.RecordResult{}, false, err
		}
		sum = store.TextSHA256(string(b))
	}
	err = db.Write(ctx, func(tx *store.Tx) error {
		if sum != "" {
			found, err := tx.LookupIdempotency(c.IdempotencyKey, sum, &res)
			if err != nil || found {
				replayed = found
				return err
			}
		}
		if res, _, err = memory.ApplyCorrection(tx, c); err != nil {
			return err
		}
		if sum != "" {
			return tx.SaveIdempotency(c.IdempotencyKey, sum, res)
		}
		return nil
	})
	if err != nil {
		return memory.RecordResult{}, false, err
	}
	return res, replayed, nil
}

// MustRecord records one correction (a reinforcement with text
// "correction" at T0 unless c says otherwise) and fails the test on error.
func MustRecord(tb testing.TB, db *store.DB, c engine.Correction) memory.RecordResult {
	tb.Helper()
	if c.UserText == "" {
		c.UserText = "correction"
	}
	if c.Polarity == 0 {
		c.Polarity = engine.Reinforce
	}
	if c.At.IsZero() {
		c.At = T0
	}
	res, _, err := Record(context.Background(), db, c)
	if err != nil {
		tb.Fatalf("Record(%s): %v", c.RuleID, err)
	}
	return res
}

// MustCreate stores a rule at the prior with the given id, category and
// scope, first seen at T0.
func MustCreate(tb testing.TB, db *store.DB, id, category string, scope engine.Scope) engine.Rule {
	tb.Helper()
	r := engine.NewRule(id, category, engine.SeverityShould, "Text of "+id, scope, engine.DefaultConfig(), T0)
	out, err := db.CreateRule(context.Background(), r)
	if err != nil {
		tb.Fatalf("CreateRule(%s): %v", id, err)
	}
	return out
}

// T0 is the fixed clock of the suite.
var T0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// MustCreatePending stores an open pending confirmation of text and
// returns its id.
func MustCreatePending(tb testing.TB, db *store.DB, text string) int64 {
	tb.Helper()
	var id int64
	err := db.Write(context.Background(), func(tx *store.Tx) error {
		var err error
		id, err = tx.CreatePending(engine.Pending{Text: text})
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return id
}
