-- 003_direction_unsure: an inbox suggestion whose direction the learned
-- stance model reads the other way round from the rule-based reading
-- (engine.Pending.DirectionUnsure): the review asks instead of offering one.

ALTER TABLE pending_confirmations ADD COLUMN direction_unsure integer NOT NULL DEFAULT 0 CHECK (direction_unsure IN (0, 1));
