-- 006_store_jobs: when a job of the store last ran, as in PostgreSQL's
-- schema. Its first job is the write probe: a readiness check that records
-- its run here to learn whether a write can commit again after the disk
-- was full or the file read-only.

CREATE TABLE store_jobs (
  name   TEXT NOT NULL PRIMARY KEY,
  ran_at TEXT NOT NULL
) STRICT;
