-- 007_stated_suggestions: the explicit act that put a rule in force at once
-- (engine.Statement: when, which act, from what words, and the rule's
-- counterexample count at that moment), and for an inbox suggestion how
-- often it was seen, when last, and the correction gate's probability.

ALTER TABLE persona_rules ADD COLUMN stated_at TEXT;
ALTER TABLE persona_rules ADD COLUMN stated_by TEXT;
ALTER TABLE persona_rules ADD COLUMN stated_text TEXT;
ALTER TABLE persona_rules ADD COLUMN stated_counter_base INTEGER NOT NULL DEFAULT 0 CHECK (stated_counter_base >= 0);

ALTER TABLE pending_confirmations ADD COLUMN seen INTEGER NOT NULL DEFAULT 1 CHECK (seen >= 1);
ALTER TABLE pending_confirmations ADD COLUMN last_seen_at TEXT;
ALTER TABLE pending_confirmations ADD COLUMN gate REAL CHECK (gate IS NULL OR (gate >= 0 AND gate <= 1));

-- A retracted event stays in the history; this table says which event
-- retracted it (a manual_override of the same rule) and when. The ids are
-- not foreign keys: events are never deleted, and a reference would stand
-- in the way of the append-only trigger's own refusal.
CREATE TABLE retracted_events (
  event_id      INTEGER NOT NULL PRIMARY KEY,
  retraction_id INTEGER NOT NULL,
  at            TEXT NOT NULL
) STRICT;

-- What the hooks captured, one row a prompt, kept for the "learned
-- recently" view: what it became (recorded, pending, stated, ignored), the
-- gate's probability, why, and a short excerpt of its prose. The store
-- keeps the newest rows only (memory prunes it).
CREATE TABLE capture_log (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  at         TEXT NOT NULL,
  frame_id   TEXT,
  action     TEXT NOT NULL CHECK (action <> ''),
  gate       REAL,
  reason     TEXT,
  excerpt    TEXT NOT NULL,
  rule_id    TEXT,
  pending_id INTEGER,
  event_id   INTEGER
) STRICT;

CREATE INDEX capture_log_at ON capture_log (at);
CREATE INDEX capture_log_frame ON capture_log (frame_id) WHERE frame_id IS NOT NULL;
