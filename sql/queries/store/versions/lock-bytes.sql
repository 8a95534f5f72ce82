-- Holds the bytes $1 (a SHA-256) against approvals and inserts of them until the
-- transaction ends: a removal deciding whether they are still live (sql/007). The
-- two-key form keeps these locks apart from the migrations' one-key lock.
-- params: $1 sha256
select pg_advisory_xact_lock(283, hashtext($1::text))
