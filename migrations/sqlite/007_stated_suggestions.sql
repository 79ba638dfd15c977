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
