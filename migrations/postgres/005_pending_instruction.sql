-- 005_pending_instruction: the reporter's one-sentence reading of a
-- confirmation's words (engine.Pending.Instruction); a rule proposed from
-- the confirmation takes it as its text. NULL when none was given.

ALTER TABLE pending_confirmations ADD COLUMN instruction text;
