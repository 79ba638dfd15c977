-- 002_stated_suggestions: the explicit act that put a rule in force at once
-- (engine.Statement: when, which act, from what words, and the rule's
-- counterexample count at that moment), and for an inbox suggestion how
-- often it was seen, when last, and the correction gate's probability.

ALTER TABLE persona_rules ADD COLUMN stated_at text COLLATE "C";
ALTER TABLE persona_rules ADD COLUMN stated_by text;
ALTER TABLE persona_rules ADD COLUMN stated_text text;
ALTER TABLE persona_rules ADD COLUMN stated_counter_base integer NOT NULL DEFAULT 0 CHECK (stated_counter_base >= 0);

ALTER TABLE pending_confirmations ADD COLUMN seen integer NOT NULL DEFAULT 1 CHECK (seen >= 1);
ALTER TABLE pending_confirmations ADD COLUMN last_seen_at text COLLATE "C";
ALTER TABLE pending_confirmations ADD COLUMN gate double precision CHECK (gate IS NULL OR (gate >= 0 AND gate <= 1));
