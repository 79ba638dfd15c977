-- 009_rule_aliases: the ids a rule was known by before it was renamed or
-- merged into another, so that an id a user wrote down (a CORRECT[id], a
-- script, a link) still reaches the rule. A rule renamed again carries its
-- aliases along (ON UPDATE CASCADE); a rule deleted takes them with it; a
-- rule created under an old id takes the id back (the store deletes its
-- alias).

CREATE TABLE rule_aliases (
  old_id     TEXT NOT NULL PRIMARY KEY,
  rule_id    TEXT NOT NULL REFERENCES persona_rules (rule_id) ON UPDATE CASCADE ON DELETE CASCADE,
  created_at TEXT NOT NULL
) STRICT, WITHOUT ROWID;

CREATE INDEX rule_aliases_rule ON rule_aliases (rule_id);
