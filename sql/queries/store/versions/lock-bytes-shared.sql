-- Holds the bytes $1 (a SHA-256) against a removal of them until the transaction
-- ends: an approval or an insert about to use them (sql/007). Taken before
-- bytes-removed.sql, in its own statement, so that read sees a removal that
-- committed while this one waited.
-- params: $1 sha256
select pg_advisory_xact_lock_shared(283, hashtext($1::text))
