-- 003_registry_source: the registry file last synced, so that commands given
-- no --registry keep using it instead of falling back to the default pack.

CREATE TABLE registry_source (
  id        INTEGER PRIMARY KEY CHECK (id = 1),
  name      TEXT NOT NULL,
  yaml      BLOB NOT NULL,
  sha256    TEXT NOT NULL,
  synced_at TEXT NOT NULL
) STRICT;
