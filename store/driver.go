package store

import (
	"context"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// A driver keeps the store's rows in one database. It makes no decision of
// the domain: package store checks rows and calls the driver to read and
// write them; package memory decides. Every driver passes the contract suite (store/storetest).
//
// Errors of a driver: an *engine.Error the caller can act on (EUNAVAILABLE
// for a database that is locked, full, read-only or damaged, naming which;
// a fault carries its FaultKind, see Fault), a context error when the
// operation's context ended, anything else internal (wrapped with %w).
// A missing row is never an error: the methods that look one up report it
// with found=false.

// Driver is an open database. It is safe for concurrent use.
type Driver interface {
	// Reader returns a Reader on committed data whose reads each run alone
	// (no transaction), with ctx.
	Reader(ctx context.Context) Reader
	// Read runs fn in one read transaction: all its reads see the same
	// committed state.
	Read(ctx context.Context, fn func(Reader) error) error
	// Write runs fn as one atomic unit of writes and returns once it is
	// durably committed. When fn returns an error or panics, its writes are
	// rolled back and the error returned as is (a panic is raised again in
	// the caller). A driver may commit several callers' functions together;
	// each then sees the writes of those committed before it.
	Write(ctx context.Context, fn func(DriverTx) error) error

	// Location names the database (a file path, a URL) without credentials.
	Location() string
	// ReadOnly reports whether the database was opened read-only.
	ReadOnly() bool
	// Writable reports whether a write can commit now (EUNAVAILABLE naming
	// why not: a recorded fault, read-only, the lock cannot be taken).
	Writable(ctx context.Context) error
	// NoteError records err when it is a fault (see Fault); LastFault
	// returns the fault recorded last, nil once a write committed after a
	// full disk or a read-only file (damage stays).
	NoteError(err error)
	LastFault() error
	// QuickCheck checks the database's structure for at most limit;
	// finished is false when the time ran out. Its error is EUNAVAILABLE
	// with the damaged-file fault when damage was found.
	QuickCheck(ctx context.Context, limit time.Duration) (finished bool, err error)

	// SchemaVersion is the newest migration applied, Migrations every
	// applied one (oldest first), LatestSchemaVersion the newest this
	// build's driver knows.
	SchemaVersion(ctx context.Context) (int, error)
	Migrations(ctx context.Context) ([]Migration, error)
	LatestSchemaVersion() int

	// Close waits for queued writes and releases the database. Calling it
	// again returns the first call's result.
	Close() error
}

// Reader reads rows. Lists are ordered as each method says and never nil.
type Reader interface {
	// Rule returns the rule row with that id.
	Rule(id string) (row RuleRow, found bool, err error)
	RuleExists(id string) (bool, error)
	// RuleAlias returns the id of the rule that old was renamed or merged
	// into (found false: old was never renamed, or is a rule's id again).
	RuleAlias(old string) (ruleID string, found bool, err error)
	// RuleAliases returns every alias, by old id.
	RuleAliases() ([]RuleAlias, error)
	// Rules returns the rules q selects, ordered by rule id.
	Rules(q RuleQuery) ([]engine.Rule, error)
	// RuleStates returns the sync state of every rule, in any order.
	RuleStates() ([]RuleState, error)
	// ActiveRules returns every active-eligible rule, in any order.
	ActiveRules() ([]engine.Rule, error)
	// RulesChangedSince returns the rules (of any status) written after
	// the rules version v, RulesRemovedSince the ids that stopped existing
	// (deleted or renamed away) after it.
	RulesChangedSince(v int64) ([]engine.Rule, error)
	RulesRemovedSince(v int64) ([]string, error)
	// Versions returns the change counters.
	Versions() (Versions, error)

	// Events returns up to limit events of a rule with ids after afterID,
	// by event id.
	Events(ruleID string, afterID int64, limit int) ([]engine.Event, error)
	// Event returns one event with the id of the event that retracted it.
	Event(id int64) (row EventRow, found bool, err error)
	// EventsSince returns the events at or after since that were learned
	// from someone's words — evidence (polarity ±1), violations, rules
	// created from a correction — newest first.
	EventsSince(since time.Time, limit int) ([]EventRow, error)
	// CapturesSince returns the capture log's entries at or after since,
	// newest first.
	CapturesSince(since time.Time, limit int) ([]CaptureEntry, error)
	// CountCaptures counts the capture log's entries of one frame (session).
	CountCaptures(frameID string) (int, error)
	// CounterexampleTags counts, per context tag, the counterexamples of a
	// rule that carried it.
	CounterexampleTags(ruleID string) (map[string]int, error)
	// ExceptionTags returns the tags for which an exception to parentID
	// was proposed (whatever became of it) or rejected, in any order.
	ExceptionTags(parentID string) ([]string, error)

	// ConfigRows returns the stored config overrides by key.
	ConfigRows() ([]ConfigRow, error)

	Pending(id int64) (p engine.Pending, found bool, err error)
	// ListPending returns up to limit confirmations with that status (""
	// for all) by id.
	ListPending(status string, limit int) ([]engine.Pending, error)

	IdempotencyKey(key string) (row IdempotencyRow, found bool, err error)

	// RuleTexts returns a rule's texts by kind and sha256.
	RuleTexts(ruleID string) ([]RuleText, error)
	// LiveRuleTexts returns the texts of every rule that is not archived,
	// by rule id and sha256; CountLiveRuleTexts counts them.
	LiveRuleTexts() ([]RuleText, error)
	CountLiveRuleTexts() (int, error)
	// TextsWithoutEmbedding is LiveRuleTexts less those with a vector for
	// modelID.
	TextsWithoutEmbedding(modelID string) ([]RuleText, error)
	// EmbeddingDims is the length of modelID's stored vectors (0: none).
	EmbeddingDims(modelID string) (int, error)
	// Embeddings returns modelID's vectors of rules that are not archived,
	// by rule id and sha256.
	Embeddings(modelID string) ([]StoredEmbedding, error)

	// RegistryFiles returns the registries in force, by name.
	RegistryFiles() ([]RegistryFile, error)

	// Stats counts the rows of each kind.
	Stats() (Stats, error)
}

// DriverTx is a write transaction: it reads what it wrote.
type DriverTx interface {
	Reader

	// InsertRule inserts a rule row (the id is free: checked by the
	// caller), updated at at.
	InsertRule(row RuleRow, at time.Time) error
	// UpdateRule overwrites every column of the row with row.RuleID;
	// found is false when there is none.
	UpdateRule(row RuleRow, at time.Time) (found bool, err error)
	// UpdateEvidence writes r's alpha, beta, counts, first_seen and
	// last_correction, updated at at.
	UpdateEvidence(r engine.Rule, at time.Time) error
	// SetStatus sets a rule's status and archived_by ("" unless archived).
	SetStatus(id string, status engine.Status, archivedBy string, at time.Time) error
	// RenameRule changes a rule's id; its events, texts, embeddings,
	// rejections and exception links follow it.
	RenameRule(from, to string) error
	// PutRuleAlias records (or moves) old as an alias of rule ruleID;
	// DeleteRuleAlias forgets old's. A rule's aliases follow its renames
	// and go with it when it is deleted.
	PutRuleAlias(old, ruleID string, at time.Time) error
	DeleteRuleAlias(old string) error
	// DeleteRule deletes a rule that has no events left.
	DeleteRule(id string) error
	// MoveRuleRows re-attributes from's events, vectors (those into has
	// no vector for), exception links, rejections and aliases to into.
	MoveRuleRows(from, into string) error

	// InsertEvent appends ev and sets ev.EventID.
	InsertEvent(ev *engine.Event) (int64, error)
	// InsertRetraction records that event id was retracted by event by.
	InsertRetraction(id, by int64, at time.Time) error
	// InsertCapture appends one capture log entry; PruneCaptures keeps the
	// newest keep.
	InsertCapture(e CaptureEntry) error
	PruneCaptures(keep int) error

	// PutRejection records (parentID, tag) as rejected (no-op when it is),
	// DeleteRejection forgets it.
	PutRejection(parentID, tag string, at time.Time) error
	DeleteRejection(parentID, tag string) error

	// InsertRuleText adds a text; inserted is false when the rule already
	// has a text with that sha256 (left unchanged).
	InsertRuleText(x RuleText, at time.Time) (inserted bool, err error)
	SetRuleTextKind(ruleID, sha256, kind string) error
	// DeleteRuleText deletes a text and its vectors.
	DeleteRuleText(ruleID, sha256 string) error
	// PutEmbedding stores (or replaces) the vector of a text for modelID;
	// a text the rule no longer has is skipped.
	PutEmbedding(modelID string, e StoredEmbedding, at time.Time) error
	// DeleteEmbeddingsLike deletes the vectors whose model id starts with
	// prefix, except keep's, and says how many it deleted.
	DeleteEmbeddingsLike(prefix, keep string) (int64, error)

	InsertPending(p engine.Pending) (int64, error)
	// SeePending counts one more prompt for the open confirmation id, at
	// at, keeping the higher of its gate probability and gate; done is false
	// when no open confirmation has that id.
	SeePending(id int64, gate float64, at time.Time) (done bool, err error)
	// ResolvePending sets the status, rule and time of a confirmation that
	// is still pending; done is false when there is none pending.
	ResolvePending(id int64, status, ruleID string, at time.Time) (done bool, err error)

	InsertIdempotencyKey(key string, row IdempotencyRow, at time.Time) error
	// PruneIdempotencyKeys deletes, at at, the keys stored before
	// before (a driver may skip a pass that another instance's made
	// moments ago: it then deletes nothing).
	PruneIdempotencyKeys(before, at time.Time) (int64, error)

	PutConfig(key, value string, at time.Time) error
	DeleteConfig(key string) error

	// PutRegistryFile records a registry in force under its name (no
	// write when it is recorded with the same sha256).
	PutRegistryFile(f RegistryFile) error
}
