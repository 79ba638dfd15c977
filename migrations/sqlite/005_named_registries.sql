-- 005_named_registries: several registries in force, each a named source of
-- rules, and two more event types.
--
-- persona_events gains the event types 'promotion' (a candidate became
-- active by itself) and 'violation' (an agent acted against a rule). SQLite
-- cannot change a CHECK constraint in place, so the table is rebuilt: every
-- row is copied with its event_id, then its indexes and triggers are created
-- again on the new table (after the copy, so the copy counts no tag twice).
-- Dropping a table fires no trigger; nothing references persona_events.

CREATE TABLE persona_events_new (
  event_id     INTEGER PRIMARY KEY AUTOINCREMENT,
  rule_id      TEXT NOT NULL REFERENCES persona_rules (rule_id) ON UPDATE CASCADE ON DELETE RESTRICT,
  event_type   TEXT NOT NULL CHECK (event_type IN ('creation', 'reinforcement', 'counterexample', 'manual_override',
                 'confirmation', 'promotion', 'violation')),
  user_text    TEXT,
  agent_output TEXT,
  frame_id     TEXT,
  scope        TEXT NOT NULL DEFAULT '{}' CHECK (json_type(scope) = 'object'),
  decision     TEXT,
  score        REAL,
  candidates   TEXT CHECK (candidates IS NULL OR json_type(candidates) = 'array'),
  model        TEXT,
  detail       TEXT,
  polarity     INTEGER NOT NULL DEFAULT 0 CHECK (polarity IN (-1, 0, 1)),
  alpha        REAL NOT NULL,
  beta         REAL NOT NULL,
  at           TEXT NOT NULL
) STRICT;

INSERT INTO persona_events_new (event_id, rule_id, event_type, user_text, agent_output, frame_id, scope, decision,
    score, candidates, model, detail, polarity, alpha, beta, at)
  SELECT event_id, rule_id, event_type, user_text, agent_output, frame_id, scope, decision,
    score, candidates, model, detail, polarity, alpha, beta, at
  FROM persona_events ORDER BY event_id;

DROP TABLE persona_events;
ALTER TABLE persona_events_new RENAME TO persona_events;

CREATE INDEX persona_events_rule ON persona_events (rule_id, event_id);
CREATE INDEX persona_events_frame ON persona_events (frame_id) WHERE frame_id IS NOT NULL;

CREATE TRIGGER persona_events_no_delete BEFORE DELETE ON persona_events
BEGIN
  SELECT RAISE(ABORT, 'persona_events is append-only: events cannot be deleted');
END;

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

-- The registry that defines a registry rule (NULL for the user's rules and
-- those learned from corrections). Registry rules synced so far came from
-- the one registry in force, or from the default pack when none was recorded.
ALTER TABLE persona_rules ADD COLUMN registry TEXT CHECK (registry <> '');

UPDATE persona_rules
  SET registry = coalesce((SELECT nullif(name, '') FROM registry_source WHERE id = 1), 'default')
  WHERE source = 'registry';

CREATE INDEX persona_rules_registry ON persona_rules (registry) WHERE registry IS NOT NULL;

-- The registries in force, one row per name; the one recorded so far keeps
-- its row.
CREATE TABLE registry_source_new (
  name      TEXT NOT NULL PRIMARY KEY CHECK (name <> ''),
  yaml      BLOB NOT NULL,
  sha256    TEXT NOT NULL,
  synced_at TEXT NOT NULL
) STRICT;

INSERT INTO registry_source_new (name, yaml, sha256, synced_at)
  SELECT coalesce(nullif(name, ''), 'default'), yaml, sha256, synced_at FROM registry_source;

DROP TABLE registry_source;
ALTER TABLE registry_source_new RENAME TO registry_source;
