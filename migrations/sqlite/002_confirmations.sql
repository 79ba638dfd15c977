-- 002_confirmations: what the classifier and the service need — corrections
-- in the confirm band waiting for the user, and idempotency keys.

CREATE TABLE pending_confirmations (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  text         TEXT NOT NULL CHECK (text <> ''),
  scope        TEXT NOT NULL DEFAULT '{}' CHECK (json_type(scope) = 'object'), -- JSON engine.Scope
  polarity     INTEGER NOT NULL DEFAULT 1 CHECK (polarity IN (1, -1)),
  frame_id     TEXT,
  agent_output TEXT,
  candidates   TEXT NOT NULL DEFAULT '[]' CHECK (json_type(candidates) = 'array'), -- JSON [{rule_id, score}]
  model        TEXT,
  status       TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'rejected', 'new_rule')),
  rule_id      TEXT, -- the rule it resolved to (not a foreign key: rules can be renamed or merged later)
  created_at   TEXT NOT NULL,
  resolved_at  TEXT,
  CHECK ((status = 'pending') = (resolved_at IS NULL))
) STRICT;

CREATE INDEX pending_confirmations_status ON pending_confirmations (status, id);

-- A request's idempotency key, the sha256 of the request it was first used
-- with, and the JSON response to replay.
CREATE TABLE idempotency_keys (
  key            TEXT NOT NULL PRIMARY KEY,
  request_sha256 TEXT NOT NULL,
  response       TEXT NOT NULL,
  created_at     TEXT NOT NULL
) STRICT;

CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
