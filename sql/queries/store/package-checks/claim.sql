-- Claims up to $3 due package checks, each leased until $2 under claim $4: due at
-- $1 and not leased to another process; rows another process is claiming right now
-- are skipped (SKIP LOCKED), so every site process shares the work.
-- params: $1 now, $2 lease_until, $3 batch, $4 claim
with due as (
  select plugin_id
    from plugin_package_checks
   where due_at <= $1 and (locked_until is null or locked_until <= $1)
   order by due_at, plugin_id
   limit $3
     for update skip locked
)
update plugin_package_checks c
   set locked_until = $2, claim = $4, attempts = c.attempts + 1
  from due
 where c.plugin_id = due.plugin_id
returning c.plugin_id, c.download, c.attempts
