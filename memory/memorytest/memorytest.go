// Package memorytest is the contract memory's decisions keep over every
// store driver: Run executes each behaviour of the use cases that reaches
// the database (evidence exact under concurrent corrections from several
// instances, idempotency keys, exception proposals and their review,
// candidates, edits, merges, renames, registry syncs with named sources and
// their dry run, snapshots and the rule cache, embeddings) against a store
// a driver opens (store/storetest.Opener). The drivers' packages run it
// beside store/storetest's row contract. It also holds the helpers their
// tests share to record corrections and sync definitions.
package memorytest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/storetest"
)

// Run runs the contract suite, each behaviour a subtest with a store of its
// own from open.
func Run(t *testing.T, open storetest.Opener) {
	for _, tc := range []struct {
		name string
		fn   func(*testing.T, storetest.Opener)
	}{
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
		{"HistoryPaging", testHistoryPaging},
		{"DoneContextStopsStatements", testDoneContextStopsStatements},
		{"ExceptionProposal", testExceptionProposal},
		{"RejectException", testRejectException},
		{"ExceptionStatusOnlyByReview", testExceptionStatusOnlyByReview},
		{"RejectCandidateArchivesException", testRejectCandidateArchivesException},
		{"PendingConfirmations", testPendingConfirmations},
		{"Retract", testRetract},
		{"SyncDefinitions", testSyncDefinitions},
		{"SyncBadDefinitionWritesNothing", testSyncBadDefinitionWritesNothing},
		{"SyncTenThousandDefinitions", testSyncTenThousandDefinitions},
		{"SyncRegistryAllOrNothing", testSyncRegistryAllOrNothing},
		{"SyncNamedRegistries", testSyncNamedRegistries},
		{"SyncRegistryConflict", testSyncRegistryConflict},
		{"Registries", testRegistries},
		{"PlanRegistry", testPlanRegistry},
		{"SetConfig", testSetConfig},
		{"ReplaceTextsOf", testReplaceTextsOf},
		{"EmbeddingsRoundTrip", testEmbeddingsRoundTrip},
		{"PutEmbeddingsBadInput", testPutEmbeddingsBadInput},
		{"PruneEmbeddings", testPruneEmbeddings},
		{"ScopeEditBumpsEmbeddingsVersion", testScopeEditBumpsEmbeddingsVersion},
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
	err = db.Write(ctx, t0, func(tx *store.Tx) error {
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
// "correction" at storetest.T0 unless c says otherwise) and fails the test on error.
func MustRecord(tb testing.TB, db *store.DB, c engine.Correction) memory.RecordResult {
	tb.Helper()
	if c.UserText == "" {
		c.UserText = "correction"
	}
	if c.Polarity == 0 {
		c.Polarity = engine.Reinforce
	}
	if c.At.IsZero() {
		c.At = storetest.T0
	}
	res, _, err := Record(context.Background(), db, c)
	if err != nil {
		tb.Fatalf("Record(%s): %v", c.RuleID, err)
	}
	return res
}

// MustSync syncs defs as the default registry at storetest.T0 or fails the
// test.
func MustSync(t *testing.T, db *store.DB, defs ...engine.Definition) memory.SyncResult {
	t.Helper()
	res, err := memory.ApplyRegistry(context.Background(), db, memory.RegistrySync{Definitions: defs, At: t0})
	if err != nil {
		t.Fatalf("SyncDefinitions: %v", err)
	}
	return res
}

// t0 is the fixed clock of the suite.
var t0 = storetest.T0

func ptr[T any](v T) *T { return &v }
