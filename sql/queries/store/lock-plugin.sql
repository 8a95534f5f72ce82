-- Locks plugin $1 (case-insensitive id) for any write to it in this transaction
-- (only lockPlugin, src/services/site/store/plugin-state.ts, runs it): concurrent
-- writes to one plugin take turns. Only the locked row's own
-- columns are read here: after waiting for the lock, PostgreSQL re-reads the locked
-- row but not other tables, so what depends on the pending update is read by the
-- next statement (store/review-state.sql), under the lock.
-- params: $1 plugin_id
-- not null: submitter_id
select p.id, p.status, p.submitter_id::text as submitter_id
  from plugins p
 where lower(p.id) = lower($1)
   for update of p
