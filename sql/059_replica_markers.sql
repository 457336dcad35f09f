-- Read-your-writes with a streaming read replica (issue 55, DATABASE_REPLICA_URL).
--
-- After a request by a user that may have written (any method but GET/HEAD), the primary's WAL
-- insert position is recorded here as that user's marker; the session lookup of every request
-- (on the primary) reads it, and a replica read for the user is allowed only once the replica
-- has replayed past it (src/db/replica.ts). Unlogged: a marker is written per write request and
-- needs no WAL of its own (nor would a replica use it); after a crash of the primary the table
-- is empty, and every read waits on the replica's lag bound alone (REPLICA_MAX_LAG_MS).
-- Written only when a replica is configured.
create unlogged table replica_markers (
  user_id uuid primary key references users (id) on delete cascade,
  lsn     pg_lsn not null
);
