package sqldriver

import (
	"strconv"
	"strings"
)

// Dialect is what differs between the databases in the text of the
// statements the drivers share (Statements).
type Dialect struct {
	// Param is the placeholder of the n-th argument of a statement (n ≥ 1).
	Param func(n int) string
	// InOrder, when not "", is the placeholder of every argument of a
	// statement whose arguments each appear once, in order: SQLite binds
	// an anonymous ? without looking up its name, which a numbered one
	// costs at every call.
	InOrder string
	// AsText follows a JSON column selected as text: "::text" where the
	// column has a JSON type, "" where it is text already.
	AsText string
	// RuleVersion is what a statement writing a rule row sets its
	// row_version to, "" where a trigger stamps it.
	RuleVersion string
	// ReturningID: an insert whose new id is read ends with RETURNING and
	// the id column (Conn.InsertID reads it as a row); false where the
	// driver asks the connection for the last inserted id.
	ReturningID bool
	// Tags is how rule tag lists are stored.
	Tags Tags
	// TableOptions follows the definition of a table the drivers create
	// themselves (schema_migrations): " STRICT" where the database checks
	// column types only when asked.
	TableOptions string
}

// DollarParam is the placeholder $n (PostgreSQL).
func DollarParam(n int) string { return "$" + strconv.Itoa(n) }

// NumberedParam is the placeholder ?n (SQLite).
func NumberedParam(n int) string { return "?" + strconv.Itoa(n) }

// rebind rewrites the $n placeholders of q, written as for PostgreSQL, into
// d's: InOrder's when they run $1, $2, $3… each once, Param's otherwise.
// The statements hold no other $ (no string literal has one).
func (d Dialect) rebind(q string) string {
	nums := placeholders(q)
	param := d.Param
	if d.InOrder != "" && inOrder(nums) {
		param = func(int) string { return d.InOrder }
	}
	var b strings.Builder
	for _, n := range nums {
		i := strings.IndexByte(q, '$')
		b.WriteString(q[:i])
		b.WriteString(param(n))
		q = q[i+1+len(strconv.Itoa(n)):]
	}
	b.WriteString(q)
	return b.String()
}

// placeholders returns the numbers of q's $n placeholders, in order.
func placeholders(q string) []int {
	var nums []int
	for {
		i := strings.IndexByte(q, '$')
		if i < 0 {
			return nums
		}
		j := i + 1
		for j < len(q) && q[j] >= '0' && q[j] <= '9' {
			j++
		}
		n, _ := strconv.Atoi(q[i+1 : j])
		nums = append(nums, n)
		q = q[j:]
	}
}

// inOrder reports whether nums is 1, 2, 3….
func inOrder(nums []int) bool {
	for i, n := range nums {
		if n != i+1 {
			return false
		}
	}
	return true
}

// param is the placeholder of the n-th argument of a statement built
// argument by argument, in order (see Queries.Rules).
func (d Dialect) param(n int) string {
	if d.InOrder != "" {
		return d.InOrder
	}
	return d.Param(n)
}

// Statements are the SQL text of the statements the drivers share, in one
// database's dialect: the rules, events, texts, embeddings, confirmations,
// config, idempotency keys and registries (see Queries).
type Statements struct {
	d   Dialect
	all []string

	ruleGet, ruleExists, ruleInsert, ruleUpdate, ruleEvidence, ruleStatus, ruleRename, ruleDelete string
	ruleStates, activeRules, changedRules, removedRules, versions                                 string
	aliasGet, aliasPut, aliasDelete, aliasesMove, aliasesAll                                      string

	eventInsert, eventInsertID, eventsPage, counterTags, proposedTags, rejectionPut, rejectionDelete string
	eventGet, eventsSince, retractionInsert, retractionOf                                            string
	captureInsert, captureSince, capturePrune, captureCount                                          string
	embeddingsMove, eventsMove, exceptionsMove, rejectionsMove                                       string

	textsOfRule, textInsert, textSetKind, textDelete, liveTexts, countLiveTexts, missingTexts string
	embeddingPut, embeddingDims, embeddingsLike, embeddingsSize, embeddingsLoad               string

	pendingInsert, pendingGet, pendingResolve, pendingList, pendingSeen string

	configAll, configUpsert, configDelete, idemGet, idemInsert, idemPrune, registries, registryPut, stats string
	jobRanAt, jobRan                                                                                      string
}

// All lists every statement, for a driver that prepares them.
func (s *Statements) All() []string { return s.all }

// Tags is how the statements' database stores tag lists.
func (s *Statements) Tags() Tags { return s.d.Tags }

// Dialect returns the dialect the statements are written in.
func (s *Statements) Dialect() Dialect { return s.d }

// add rebinds q into s's dialect and lists it.
func (s *Statements) add(q string) string {
	q = s.d.rebind(q)
	s.all = append(s.all, q)
	return q
}

// returning ends an insert whose id column col InsertID reads.
func (s *Statements) returning(q, col string) string {
	if s.d.ReturningID {
		q += " RETURNING " + col
	}
	return q
}

// ruleCols are the persona_rules columns ScanRule reads, NULLs as "";
// rowCols adds those of store.RuleRow.
const (
	ruleCols = `rule_id, category, severity, rule_text, coalesce(scope_environment, ''), coalesce(scope_project, ''),
	coalesce(scope_agent_family, ''), scope_context_tags, scope_exclude_tags, coalesce(topic, ''),
	alpha, beta, reinforcements, counter_examples, first_seen, last_correction, status, source,
	coalesce(exception_of, ''), coalesce(exception_tag, ''), coalesce(registry, ''),
	coalesce(stated_at, ''), coalesce(stated_by, ''), coalesce(stated_text, ''), stated_counter_base`
	rowCols = ruleCols + `, coalesce(archived_by, ''), coalesce(definition_sha256, '')`
)

// NewStatements writes the shared statements in d's dialect.
func NewStatements(d Dialect) *Statements {
	s := &Statements{d: d}
	s.rules()
	s.events()
	s.texts()
	s.records()
	return s
}

func (s *Statements) rules() {
	insertCols, insertVals, stamp := "", "", ""
	if v := s.d.RuleVersion; v != "" {
		insertCols, insertVals, stamp = ", row_version", ", "+v, ", row_version = "+v
	}
	s.ruleGet = s.add(`SELECT ` + rowCols + ` FROM persona_rules WHERE rule_id = $1`)
	s.ruleExists = s.add(`SELECT count(*) FROM persona_rules WHERE rule_id = $1`)
	s.ruleInsert = s.add(`INSERT INTO persona_rules (rule_id, category, severity, rule_text, scope_environment, scope_project,
	scope_agent_family, scope_context_tags, scope_exclude_tags, topic, alpha, beta, reinforcements, counter_examples,
	first_seen, last_correction, status, archived_by, source, exception_of, exception_tag, definition_sha256, registry,
	stated_at, stated_by, stated_text, stated_counter_base,
	created_at, updated_at` + insertCols + `) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16,
	$17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29` + insertVals + `)`)
	s.ruleUpdate = s.add(`UPDATE persona_rules SET category = $1, severity = $2, rule_text = $3, scope_environment = $4,
	scope_project = $5, scope_agent_family = $6, scope_context_tags = $7, scope_exclude_tags = $8, topic = $9, alpha = $10,
	beta = $11, reinforcements = $12, counter_examples = $13, first_seen = $14, last_correction = $15, status = $16,
	archived_by = $17, source = $18, exception_of = $19, exception_tag = $20, definition_sha256 = $21, registry = $22,
	stated_at = $23, stated_by = $24, stated_text = $25, stated_counter_base = $26,
	updated_at = $27` + stamp + ` WHERE rule_id = $28`)
	s.ruleEvidence = s.add(`UPDATE persona_rules SET alpha = $1, beta = $2, reinforcements = $3, counter_examples = $4,
	first_seen = $5, last_correction = $6, stated_at = $7, stated_by = $8, stated_text = $9, stated_counter_base = $10,
	updated_at = $11` + stamp + ` WHERE rule_id = $12`)
	s.ruleStatus = s.add(`UPDATE persona_rules SET status = $1, archived_by = $2, updated_at = $3` + stamp + ` WHERE rule_id = $4`)
	s.ruleRename = s.add(`UPDATE persona_rules SET rule_id = $1 WHERE rule_id = $2`)
	s.ruleDelete = s.add(`DELETE FROM persona_rules WHERE rule_id = $1`)
	s.aliasGet = s.add(`SELECT rule_id FROM rule_aliases WHERE old_id = $1`)
	s.aliasPut = s.add(`INSERT INTO rule_aliases (old_id, rule_id, created_at) VALUES ($1, $2, $3)
	ON CONFLICT (old_id) DO UPDATE SET rule_id = excluded.rule_id, created_at = excluded.created_at`)
	s.aliasDelete = s.add(`DELETE FROM rule_aliases WHERE old_id = $1`)
	s.aliasesAll = s.add(`SELECT old_id, rule_id FROM rule_aliases ORDER BY old_id`)
	s.ruleStates = s.add(`SELECT rule_id, status, coalesce(archived_by, ''), source, coalesce(registry, ''),
	coalesce(definition_sha256, ''), alpha, beta FROM persona_rules`)
	s.activeRules = s.add(`SELECT ` + ruleCols + ` FROM persona_rules WHERE status = 'active-eligible'`)
	s.changedRules = s.add(`SELECT ` + ruleCols + ` FROM persona_rules WHERE row_version > $1`)
	s.removedRules = s.add(`SELECT rule_id FROM rules_removed WHERE version > $1`)
	s.versions = s.add(`SELECT (SELECT value FROM store_counters WHERE name = 'rules'),
	(SELECT value FROM store_counters WHERE name = 'config'), (SELECT value FROM store_counters WHERE name = 'embeddings')`)
}

func (s *Statements) events() {
	eventCols := `event_id, rule_id, event_type, coalesce(user_text, ''), coalesce(agent_output, ''), coalesce(frame_id, ''),
	scope` + s.d.AsText + `, coalesce(decision, ''), score, coalesce(candidates` + s.d.AsText + `, ''), coalesce(model, ''),
	coalesce(detail, ''), polarity, alpha, beta, at`
	eventInsert := `INSERT INTO persona_events (rule_id, event_type, user_text, agent_output, frame_id, scope,
	decision, score, candidates, model, detail, polarity, alpha, beta, at`
	s.eventInsert = s.add(s.returning(eventInsert+`)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`, "event_id"))
	s.eventInsertID = s.add(eventInsert + `, event_id)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`)
	s.eventsPage = s.add(`SELECT ` + eventCols + ` FROM persona_events WHERE rule_id = $1 AND event_id > $2 ORDER BY event_id LIMIT $3`)
	retracted := `, coalesce((SELECT r.retraction_id FROM retracted_events r WHERE r.event_id = persona_events.event_id), 0)`
	s.eventGet = s.add(`SELECT ` + eventCols + retracted + ` FROM persona_events WHERE event_id = $1`)
	s.eventsSince = s.add(`SELECT ` + eventCols + retracted + ` FROM persona_events WHERE at >= $1
	AND (polarity <> 0 OR event_type = 'violation' OR (event_type = 'creation' AND coalesce(user_text, '') <> ''))
	ORDER BY event_id DESC LIMIT $2`)
	s.retractionInsert = s.add(`INSERT INTO retracted_events (event_id, retraction_id, at) VALUES ($1, $2, $3)`)
	s.retractionOf = s.add(`SELECT retraction_id FROM retracted_events WHERE event_id = $1`)
	s.captureInsert = s.add(`INSERT INTO capture_log (at, frame_id, action, gate, reason, excerpt, rule_id, pending_id, event_id)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`)
	s.captureSince = s.add(`SELECT id, at, coalesce(frame_id, ''), action, gate, coalesce(reason, ''), excerpt, coalesce(rule_id, ''),
	coalesce(pending_id, 0), coalesce(event_id, 0) FROM capture_log WHERE at >= $1 ORDER BY id DESC LIMIT $2`)
	s.captureCount = s.add(`SELECT count(*) FROM capture_log WHERE frame_id = $1`)
	s.capturePrune = s.add(`DELETE FROM capture_log WHERE id <= (SELECT coalesce(max(id), 0) FROM capture_log) - $1`)
	s.counterTags = s.add(`SELECT tag, n FROM counterexample_tags WHERE rule_id = $1 AND n > 0`)
	s.proposedTags = s.add(`SELECT exception_tag FROM persona_rules WHERE exception_of = $1 AND exception_tag IS NOT NULL
	UNION SELECT tag FROM exception_rejections WHERE parent_id = $1`)
	s.rejectionPut = s.add(`INSERT INTO exception_rejections (parent_id, tag, rejected_at) VALUES ($1, $2, $3)
	ON CONFLICT (parent_id, tag) DO NOTHING`)
	s.rejectionDelete = s.add(`DELETE FROM exception_rejections WHERE parent_id = $1 AND tag = $2`)
	// MoveRuleRows' statements, each run with (into, from). A vector into
	// already has for the same model and text stays with from.
	s.embeddingsMove = s.add(`UPDATE persona_embeddings AS e SET rule_id = $1 WHERE e.rule_id = $2 AND NOT EXISTS (
	SELECT 1 FROM persona_embeddings x WHERE x.rule_id = $1 AND x.model_id = e.model_id AND x.text_sha256 = e.text_sha256)`)
	s.eventsMove = s.add(`UPDATE persona_events SET rule_id = $1 WHERE rule_id = $2`)
	s.exceptionsMove = s.add(`UPDATE persona_rules SET exception_of = $1 WHERE exception_of = $2`)
	s.aliasesMove = s.add(`UPDATE rule_aliases SET rule_id = $1 WHERE rule_id = $2`)
	s.rejectionsMove = s.add(`INSERT INTO exception_rejections (parent_id, tag, rejected_at)
	SELECT $1, tag, rejected_at FROM exception_rejections WHERE parent_id = $2 ORDER BY tag ON CONFLICT DO NOTHING`)
}

func (s *Statements) texts() {
	s.textsOfRule = s.add(`SELECT rule_id, kind, text, text_sha256 FROM rule_texts WHERE rule_id = $1 ORDER BY kind, text_sha256`)
	s.textInsert = s.add(`INSERT INTO rule_texts (rule_id, kind, text, text_sha256, created_at) VALUES ($1, $2, $3, $4, $5)
	ON CONFLICT (rule_id, text_sha256) DO NOTHING`)
	s.textSetKind = s.add(`UPDATE rule_texts SET kind = $1 WHERE rule_id = $2 AND text_sha256 = $3`)
	s.textDelete = s.add(`DELETE FROM rule_texts WHERE rule_id = $1 AND text_sha256 = $2`)
	s.liveTexts = s.add(`SELECT t.rule_id, t.kind, t.text, t.text_sha256 FROM rule_texts t
	JOIN persona_rules r ON r.rule_id = t.rule_id WHERE r.status <> 'archived' ORDER BY t.rule_id, t.text_sha256`)
	s.countLiveTexts = s.add(`SELECT count(*) FROM rule_texts t JOIN persona_rules r ON r.rule_id = t.rule_id WHERE r.status <> 'archived'`)
	s.missingTexts = s.add(`SELECT t.rule_id, t.kind, t.text, t.text_sha256 FROM rule_texts t
	JOIN persona_rules r ON r.rule_id = t.rule_id
	WHERE r.status <> 'archived' AND NOT EXISTS (SELECT 1 FROM persona_embeddings e
		WHERE e.rule_id = t.rule_id AND e.model_id = $1 AND e.text_sha256 = t.text_sha256)
	ORDER BY t.rule_id, t.text_sha256`)
	s.embeddingPut = s.add(`INSERT INTO persona_embeddings (rule_id, model_id, text_sha256, dims, vector, computed_at)
	SELECT $1, $2, $3, $4, $5, $6 WHERE EXISTS (SELECT 1 FROM rule_texts WHERE rule_id = $1 AND text_sha256 = $3)
	ON CONFLICT (rule_id, model_id, text_sha256) DO UPDATE SET dims = excluded.dims, vector = excluded.vector,
	computed_at = excluded.computed_at`)
	s.embeddingDims = s.add(`SELECT dims FROM persona_embeddings WHERE model_id = $1 LIMIT 1`)
	s.embeddingsLike = s.add(`DELETE FROM persona_embeddings WHERE substr(model_id, 1, length($1)) = $1 AND model_id <> $2`)
	s.embeddingsSize = s.add(`SELECT count(*), coalesce(sum(e.dims), 0) FROM persona_embeddings e
	JOIN persona_rules r ON r.rule_id = e.rule_id WHERE e.model_id = $1 AND r.status <> 'archived'`)
	s.embeddingsLoad = s.add(`SELECT e.rule_id, t.kind, e.text_sha256, e.vector FROM persona_embeddings e
	JOIN rule_texts t ON t.rule_id = e.rule_id AND t.text_sha256 = e.text_sha256
	JOIN persona_rules r ON r.rule_id = e.rule_id
	WHERE e.model_id = $1 AND r.status <> 'archived' ORDER BY e.rule_id, e.text_sha256`)
}

func (s *Statements) records() {
	pendingCols := `id, text, scope` + s.d.AsText + `, polarity, coalesce(frame_id, ''), coalesce(agent_output, ''),
	candidates` + s.d.AsText + `, coalesce(model, ''), status, coalesce(rule_id, ''), created_at, coalesce(resolved_at, ''),
	seen, coalesce(last_seen_at, ''), gate, direction_unsure, coalesce(instruction, '')`
	s.pendingInsert = s.add(s.returning(`INSERT INTO pending_confirmations (text, scope, polarity, frame_id, agent_output, candidates,
	model, status, created_at, gate, direction_unsure, instruction) VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', $8, $9, $10, $11)`, "id"))
	s.pendingSeen = s.add(`UPDATE pending_confirmations SET seen = seen + 1, last_seen_at = $1,
	gate = CASE WHEN gate IS NULL OR gate < $2 THEN $2 ELSE gate END WHERE id = $3 AND status = 'pending'`)
	s.pendingGet = s.add(`SELECT ` + pendingCols + ` FROM pending_confirmations WHERE id = $1`)
	s.pendingResolve = s.add(`UPDATE pending_confirmations SET status = $1, rule_id = $2, resolved_at = $3 WHERE id = $4 AND status = 'pending'`)
	s.pendingList = s.add(`SELECT ` + pendingCols + ` FROM pending_confirmations WHERE $1 = '' OR status = $1 ORDER BY id LIMIT $2`)

	s.configAll = s.add(`SELECT key, value FROM persona_config ORDER BY key`)
	s.configUpsert = s.add(`INSERT INTO persona_config (key, value, updated_at) VALUES ($1, $2, $3)
	ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`)
	s.configDelete = s.add(`DELETE FROM persona_config WHERE key = $1`)
	s.idemGet = s.add(`SELECT request_sha256, response FROM idempotency_keys WHERE key = $1`)
	s.idemInsert = s.add(`INSERT INTO idempotency_keys (key, request_sha256, response, created_at) VALUES ($1, $2, $3, $4)`)
	s.idemPrune = s.add(`DELETE FROM idempotency_keys WHERE created_at < $1`)
	s.registries = s.add(`SELECT name, yaml, sha256, synced_at FROM registry_source ORDER BY name`)
	s.registryPut = s.add(`INSERT INTO registry_source (name, yaml, sha256, synced_at) VALUES ($1, $2, $3, $4)
	ON CONFLICT (name) DO UPDATE SET yaml = excluded.yaml, sha256 = excluded.sha256, synced_at = excluded.synced_at
	WHERE registry_source.sha256 <> excluded.sha256`)
	s.stats = s.add(`SELECT (SELECT count(*) FROM persona_rules), (SELECT count(*) FROM persona_events),
	(SELECT count(*) FROM rule_texts), (SELECT count(*) FROM persona_embeddings), (SELECT count(*) FROM idempotency_keys),
	(SELECT count(*) FROM pending_confirmations), (SELECT count(*) FROM persona_config)`)
	s.jobRanAt = s.add(`SELECT ran_at FROM store_jobs WHERE name = $1`)
	s.jobRan = s.add(`INSERT INTO store_jobs (name, ran_at) VALUES ($1, $2)
	ON CONFLICT (name) DO UPDATE SET ran_at = excluded.ran_at`)
}
