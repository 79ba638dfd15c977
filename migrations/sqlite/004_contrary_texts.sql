-- 004_contrary_texts: rule texts of kind 'contrary', phrasings that say the
-- opposite of their rule ("npm is fine here" for a pnpm rule), embedded like
-- examples so that the classifier can tell a correction that contradicts a
-- rule from one that reinforces it.
--
-- SQLite cannot change a CHECK constraint in place, so rule_texts is rebuilt,
-- and persona_embeddings, which references it, with it. Dropping a table
-- fires no trigger; the rename rewrites persona_embeddings' reference.

CREATE TABLE rule_texts_new (
  rule_id     TEXT NOT NULL REFERENCES persona_rules (rule_id) ON UPDATE CASCADE ON DELETE CASCADE,
  kind        TEXT NOT NULL CHECK (kind IN ('template', 'example', 'correction', 'contrary')),
  text        TEXT NOT NULL CHECK (text <> ''),
  text_sha256 TEXT NOT NULL CHECK (length(text_sha256) = 64),
  created_at  TEXT NOT NULL,
  PRIMARY KEY (rule_id, text_sha256)
) STRICT, WITHOUT ROWID;

INSERT INTO rule_texts_new (rule_id, kind, text, text_sha256, created_at)
  SELECT rule_id, kind, text, text_sha256, created_at FROM rule_texts;

CREATE TABLE persona_embeddings_new (
  rule_id     TEXT NOT NULL,
  model_id    TEXT NOT NULL CHECK (model_id <> ''),
  text_sha256 TEXT NOT NULL,
  dims        INTEGER NOT NULL CHECK (dims > 0),
  vector      BLOB NOT NULL CHECK (length(vector) = 4 * dims),
  computed_at TEXT NOT NULL,
  PRIMARY KEY (rule_id, model_id, text_sha256),
  FOREIGN KEY (rule_id, text_sha256) REFERENCES rule_texts_new (rule_id, text_sha256) ON UPDATE CASCADE ON DELETE CASCADE
) STRICT;

INSERT INTO persona_embeddings_new (rule_id, model_id, text_sha256, dims, vector, computed_at)
  SELECT rule_id, model_id, text_sha256, dims, vector, computed_at FROM persona_embeddings;

DROP TABLE persona_embeddings;
DROP TABLE rule_texts;
ALTER TABLE rule_texts_new RENAME TO rule_texts;
ALTER TABLE persona_embeddings_new RENAME TO persona_embeddings;

CREATE INDEX persona_embeddings_text ON persona_embeddings (rule_id, text_sha256);
CREATE INDEX persona_embeddings_model ON persona_embeddings (model_id, rule_id);

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
