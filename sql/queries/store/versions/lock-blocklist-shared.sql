-- Holds the blocklist against a removal until the transaction ends: an upload about
-- to read it (blocked-among.sql) and insert its version (see lock-blocklist.sql).
-- params: none
select pg_advisory_xact_lock_shared(284, 0)
