-- Plugin $1 (its exact id, locked by lockPlugin, store/plugin-state.ts, in this transaction) as a
-- review finds it: whether a pending update waits, and the revision its record shows
-- (plugin_records.revision). Only an approved plugin's update is reviewed as one
-- (docs/api.md). A statement of its own after the lock, so it sees every
-- change committed before: a review compares the revision its administrator saw with
-- this one and decides in the same transaction, and nobody can change the plugin or
-- its pending update in between (every writer of either takes the row lock first).
-- params: $1 plugin_id
-- A test of plugins' status, and greatest() of a NOT NULL revision.
-- not null: has_pending_update, revision
select pending.plugin_id is not null and p.status = 'approved' as has_pending_update,
       greatest(p.revision, pending.revision)::text as revision
  from plugins p
  left join plugin_pending_updates pending on pending.plugin_id = p.id
 where p.id = $1
