-- Holds the blocklist (sql/007 blocked_files) against uploads until the transaction
-- ends: a removal adding files to it, so an upload either sees them or is inserted
-- before them and then gets its check from the removal.
-- params: none
select pg_advisory_xact_lock(284, 0)
