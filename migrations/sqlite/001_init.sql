-- 001_init: the core tables, after Appendix A of the LexSona paper.
--
-- Times are UTC RFC 3339 text with a fixed nine-digit fraction
-- (2006-01-02T15:04:05.000000000Z), so they sort as text. Empty scope fields
-- are stored as NULL and mean "any". Tag lists are JSON arrays (NULL when empty).

-- A behavioural rule and its Beta(alpha, beta) evidence.
CREATE TABLE persona_rules (
  rule_id            TEXT NOT NULL PRIMARY KEY,
  category           TEXT NOT NULL,
  severity           TEXT NOT NULL DEFAULT 'should' CHECK (severity IN ('must', 'should', 'style')),
  rule_text          TEXT NOT NULL CHECK (rule_text <> ''),
  scope_environment  TEXT CHECK (scope_environment <> ''),
  scope_project      TEXT CHECK (scope_project <> ''),
  scope_agent_family TEXT CHECK (scope_agent_family <> ''),
  scope_context_tags TEXT CHECK (scope_context_tags IS NULL OR json_type(scope_context_tags) = 'array'),
  scope_exclude_tags TEXT CHECK (scope_exclude_tags IS NULL OR json_type(scope_exclude_tags) = 'array'),
  topic              TEXT CHECK (topic <> ''),
  alpha              REAL NOT NULL DEFAULT 2.0 CHECK (alpha > 0),
  beta               REAL NOT NULL DEFAULT 5.0 CHECK (beta > 0),
  confidence         REAL GENERATED ALWAYS AS (alpha / (alpha + beta)) STORED, -- confidence_base, as in the paper
  reinforcements     INTEGER NOT NULL DEFAULT 0 CHECK (reinforcements >= 0),
  counter_examples   INTEGER NOT NULL DEFAULT 0 CHECK (counter_examples >= 0),
  first_seen         TEXT NOT NULL,
  last_correction    TEXT NOT NULL,
  status             TEXT NOT NULL DEFAULT 'active-eligible' CHECK (status IN ('active-eligible', 'candidate', 'archived')),
  -- Who archived it: 'registry' (it left the registry file; a sync that sees it
  -- again restores it) or 'user' (stays archived). NULL unless archived.
  archived_by        TEXT CHECK (archived_by IN ('registry', 'user')),
  source             TEXT NOT NULL DEFAULT 'user' CHECK (source <> ''),
  -- sha256 of the registry definition last applied, so a sync changes a rule
  -- only when its definition in the registry changed.
  definition_sha256  TEXT,
  -- A proposed exception names its parent rule and the context tag it carves out.
  exception_of       TEXT REFERENCES persona_rules (rule_id) ON UPDATE CASCADE ON DELETE SET NULL,
  exception_tag      TEXT,
  created_at         TEXT NOT NULL,
  updated_at         TEXT NOT NULL,
  -- The store_counters 'rules' value of the rule's last change, set by the
  -- triggers below: readers refresh a cache with the rows changed since.
  row_version        INTEGER NOT NULL DEFAULT 0,
  CHECK ((status = 'archived') = (archived_by IS NOT NULL))
) STRICT;

-- Loading the active rules (the snapshot cache) and listing rules by scope.
CREATE INDEX persona_rules_scope ON persona_rules (status, scope_environment, scope_project, scope_agent_family);
CREATE INDEX persona_rules_row_version ON persona_rules (row_version);
CREATE INDEX persona_rules_exception_of ON persona_rules (exception_of) WHERE exception_of IS NOT NULL;

-- The append-only receipt trail. alpha and beta are the rule's values after the event.
CREATE TABLE persona_events (
  event_id     INTEGER PRIMARY KEY AUTOINCREMENT,
  rule_id      TEXT NOT NULL REFERENCES persona_rules (rule_id) ON UPDATE CASCADE ON DELETE RESTRICT,
  event_type   TEXT NOT NULL CHECK (event_type IN ('creation', 'reinforcement', 'counterexample', 'manual_override', 'confirmation')),
  user_text    TEXT,
  agent_output TEXT,
  frame_id     TEXT,
  scope        TEXT NOT NULL DEFAULT '{}' CHECK (json_type(scope) = 'object'), -- JSON engine.Scope of the correction
  decision     TEXT,
  score        REAL,
  candidates   TEXT CHECK (candidates IS NULL OR json_type(candidates) = 'array'),
  model        TEXT,
  detail       TEXT,
  polarity     INTEGER NOT NULL DEFAULT 0 CHECK (polarity IN (-1, 0, 1)), -- evidence added: 1 reinforcement, -1 counterexample
  alpha        REAL NOT NULL,
  beta         REAL NOT NULL,
  at           TEXT NOT NULL
) STRICT;

CREATE INDEX persona_events_rule ON persona_events (rule_id, event_id);
CREATE INDEX persona_events_frame ON persona_events (frame_id) WHERE frame_id IS NOT NULL;

-- Events are never deleted (a rule with events cannot be deleted either:
-- ON DELETE RESTRICT above).
CREATE TRIGGER persona_events_no_delete BEFORE DELETE ON persona_events
BEGIN
  SELECT RAISE(ABORT, 'persona_events is append-only: events cannot be deleted');
END;

-- Events are never changed, with one exception: an event may be re-attributed
-- to another rule (only rule_id changes) when the rule it belongs to is renamed
-- (the ON UPDATE CASCADE above; the old id no longer exists) or is a candidate
-- being merged into another rule. Events of an established rule never move.
CREATE TRIGGER persona_events_no_update BEFORE UPDATE ON persona_events
WHEN NEW.event_id IS NOT OLD.event_id
  OR NEW.event_type IS NOT OLD.event_type
  OR NEW.user_text IS NOT OLD.user_text
  OR NEW.agent_output IS NOT OLD.agent_output
  OR NEW.frame_id IS NOT OLD.frame_id
  OR NEW.scope IS NOT OLD.scope
  OR NEW.decision IS NOT OLD.decision
  OR NEW.score IS NOT OLD.score
  OR NEW.candidates IS NOT OLD.candidates
  OR NEW.model IS NOT OLD.model
  OR NEW.detail IS NOT OLD.detail
  OR NEW.polarity IS NOT OLD.polarity
  OR NEW.alpha IS NOT OLD.alpha
  OR NEW.beta IS NOT OLD.beta
  OR NEW.at IS NOT OLD.at
  OR EXISTS (SELECT 1 FROM persona_rules WHERE rule_id = OLD.rule_id AND status <> 'candidate')
BEGIN
  SELECT RAISE(ABORT, 'persona_events is append-only: an event can only move from a renamed rule or a merged candidate');
END;

-- Per rule, how many counterexamples carried each context tag: the input of
-- exception proposals, kept by triggers so a counterexample never rescans history.
CREATE TABLE counterexample_tags (
  rule_id TEXT NOT NULL,
  tag     TEXT NOT NULL,
  n       INTEGER NOT NULL CHECK (n > 0),
  PRIMARY KEY (rule_id, tag)
) STRICT, WITHOUT ROWID;

CREATE TRIGGER persona_events_count_tags AFTER INSERT ON persona_events
WHEN NEW.polarity = -1
BEGIN
  INSERT INTO counterexample_tags (rule_id, tag, n)
    SELECT NEW.rule_id, value, 1 FROM json_each(NEW.scope, '$.context_tags') WHERE true
    ON CONFLICT (rule_id, tag) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER persona_events_move_tags AFTER UPDATE OF rule_id ON persona_events
WHEN NEW.polarity = -1 AND NEW.rule_id IS NOT OLD.rule_id
BEGIN
  UPDATE counterexample_tags SET n = n - 1
    WHERE rule_id = OLD.rule_id AND n > 1 AND tag IN (SELECT value FROM json_each(OLD.scope, '$.context_tags'));
  DELETE FROM counterexample_tags
    WHERE rule_id = OLD.rule_id AND n = 1 AND tag IN (SELECT value FROM json_each(OLD.scope, '$.context_tags'));
  INSERT INTO counterexample_tags (rule_id, tag, n)
    SELECT NEW.rule_id, value, 1 FROM json_each(NEW.scope, '$.context_tags') WHERE true
    ON CONFLICT (rule_id, tag) DO UPDATE SET n = n + 1;
END;

-- (parent, tag) pairs whose exception proposal the user rejected: never proposed again.
CREATE TABLE exception_rejections (
  parent_id   TEXT NOT NULL REFERENCES persona_rules (rule_id) ON UPDATE CASCADE ON DELETE CASCADE,
  tag         TEXT NOT NULL,
  rejected_at TEXT NOT NULL,
  PRIMARY KEY (parent_id, tag)
) STRICT, WITHOUT ROWID;

-- The texts embedded for a rule: its template, the registry's example
-- phrasings, and corrections learned by merging candidates into it.
CREATE TABLE rule_texts (
  rule_id     TEXT NOT NULL REFERENCES persona_rules (rule_id) ON UPDATE CASCADE ON DELETE CASCADE,
  kind        TEXT NOT NULL CHECK (kind IN ('template', 'example', 'correction')),
  text        TEXT NOT NULL CHECK (text <> ''),
  text_sha256 TEXT NOT NULL CHECK (length(text_sha256) = 64),
  created_at  TEXT NOT NULL,
  PRIMARY KEY (rule_id, text_sha256)
) STRICT, WITHOUT ROWID;

-- One vector per (rule, model, text): float32 little-endian, dims values.
CREATE TABLE persona_embeddings (
  rule_id     TEXT NOT NULL,
  model_id    TEXT NOT NULL CHECK (model_id <> ''),
  text_sha256 TEXT NOT NULL,
  dims        INTEGER NOT NULL CHECK (dims > 0),
  vector      BLOB NOT NULL CHECK (length(vector) = 4 * dims),
  computed_at TEXT NOT NULL,
  PRIMARY KEY (rule_id, model_id, text_sha256),
  FOREIGN KEY (rule_id, text_sha256) REFERENCES rule_texts (rule_id, text_sha256) ON UPDATE CASCADE ON DELETE CASCADE
) STRICT;

CREATE INDEX persona_embeddings_text ON persona_embeddings (rule_id, text_sha256);
CREATE INDEX persona_embeddings_model ON persona_embeddings (model_id, rule_id);

-- Overrides of the engine's hyperparameters (engine.Config keys); a key that
-- is absent has its default.
CREATE TABLE persona_config (
  key        TEXT NOT NULL PRIMARY KEY,
  value      TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT;

-- Change counters, bumped by the triggers below, so readers can cache:
-- rules (any change to persona_rules), config, embeddings (texts, vectors, or
-- rule statuses/ids, which decide which vectors are loaded).
CREATE TABLE store_counters (
  name  TEXT NOT NULL PRIMARY KEY,
  value INTEGER NOT NULL
) STRICT;

INSERT INTO store_counters (name, value) VALUES ('rules', 0), ('config', 0), ('embeddings', 0);

-- Rule ids that stopped existing (deleted, or renamed away), with the
-- 'rules' counter value of the change, so a cache can drop them.
CREATE TABLE rules_removed (
  rule_id TEXT NOT NULL,
  version INTEGER NOT NULL
) STRICT;

CREATE INDEX rules_removed_version ON rules_removed (version);

-- Every change to a rule bumps the 'rules' counter and stamps the row with
-- the new value. The store's own statements stamp the row themselves
-- (row_version = counter + 1), so the trigger only has to bump the counter;
-- any other write (or a cascade) is stamped by the trigger. The stamping
-- UPDATE sets row_version to the counter, which the WHEN clause ignores.
CREATE TRIGGER persona_rules_version_insert AFTER INSERT ON persona_rules
BEGIN
  UPDATE store_counters SET value = value + 1 WHERE name IN ('rules', 'embeddings');
  UPDATE persona_rules SET row_version = (SELECT value FROM store_counters WHERE name = 'rules')
    WHERE rowid = NEW.rowid AND NEW.row_version IS NOT (SELECT value FROM store_counters WHERE name = 'rules');
END;

CREATE TRIGGER persona_rules_version_update AFTER UPDATE ON persona_rules
WHEN NEW.row_version IS OLD.row_version OR NEW.row_version > (SELECT value FROM store_counters WHERE name = 'rules')
BEGIN
  UPDATE store_counters SET value = value + 1
    WHERE name = 'rules' OR (name = 'embeddings' AND (NEW.status IS NOT OLD.status OR NEW.rule_id IS NOT OLD.rule_id
      OR NEW.scope_environment IS NOT OLD.scope_environment OR NEW.scope_project IS NOT OLD.scope_project
      OR NEW.scope_agent_family IS NOT OLD.scope_agent_family));
  INSERT INTO rules_removed (rule_id, version)
    SELECT OLD.rule_id, value FROM store_counters WHERE name = 'rules' AND NEW.rule_id IS NOT OLD.rule_id;
  UPDATE persona_rules SET row_version = (SELECT value FROM store_counters WHERE name = 'rules')
    WHERE rowid = NEW.rowid AND NEW.row_version IS NOT (SELECT value FROM store_counters WHERE name = 'rules');
END;

CREATE TRIGGER persona_rules_version_delete AFTER DELETE ON persona_rules
BEGIN
  UPDATE store_counters SET value = value + 1 WHERE name IN ('rules', 'embeddings');
  INSERT INTO rules_removed (rule_id, version) SELECT OLD.rule_id, value FROM store_counters WHERE name = 'rules';
  DELETE FROM counterexample_tags WHERE rule_id = OLD.rule_id;
END;

CREATE TRIGGER persona_config_count_insert AFTER INSERT ON persona_config
BEGIN
  UPDATE store_counters SET value = value + 1 WHERE name = 'config';
END;

CREATE TRIGGER persona_config_count_update AFTER UPDATE ON persona_config
BEGIN
  UPDATE store_counters SET value = value + 1 WHERE name = 'config';
END;

CREATE TRIGGER persona_config_count_delete AFTER DELETE ON persona_config
BEGIN
  UPDATE store_counters SET value = value + 1 WHERE name = 'config';
END;

CREATE TRIGGER rule_texts_count_insert AFTER INSERT ON rule_texts
BEGIN
  UPDATE store_counters SET value = value + 1 WHERE name = 'embeddings';
END;

CREATE TRIGGER rule_texts_count_update AFTER UPDATE ON rule_texts
BEGIN
  UPDATE store_counters SET value = value + 1 WHERE name = 'embeddings';
END;

CREATE TRIGGER rule_texts_count_delete AFTER DELETE ON rule_texts
BEGIN
  UPDATE store_counters SET value = value + 1 WHERE name = 'embeddings';
END;

CREATE TRIGGER persona_embeddings_count_insert AFTER INSERT ON persona_embeddings
BEGIN
  UPDATE store_counters SET value = value + 1 WHERE name = 'embeddings';
END;

CREATE TRIGGER persona_embeddings_count_update AFTER UPDATE ON persona_embeddings
BEGIN
  UPDATE store_counters SET value = value + 1 WHERE name = 'embeddings';
END;

CREATE TRIGGER persona_embeddings_count_delete AFTER DELETE ON persona_embeddings
BEGIN
  UPDATE store_counters SET value = value + 1 WHERE name = 'embeddings';
END;
