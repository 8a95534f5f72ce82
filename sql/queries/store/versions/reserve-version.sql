-- Holds number $2 of plugin $1 (exact id, locked by the caller) for $3 seconds for
-- an upload; no row when the number was ever used or another upload holds it. A
-- hold that expired (its process ended before the insert) is taken over; other
-- holds expired for an hour are cleared on the way (the table stays a handful of rows).
-- Its end (as text, to the microsecond) tells this hold from a later one of the
-- same number, should this one expire and be taken over (release-version.sql).
-- params: $1 plugin_id, $2 version, $3 hold_seconds
-- not null: held_until
-- The clearing skips holds another transaction has locked: two uploads taking over
-- two such holds at once would otherwise each wait for the other's (a deadlock).
with cleared as (
  delete from version_reservations
  where (plugin_id, version) in (
    select plugin_id, version from version_reservations
    where expires_at < now() - interval '1 hour' and not (plugin_id = $1 and version = $2)
    for update skip locked
  )
)
insert into version_reservations (plugin_id, version, expires_at)
select $1, $2, now() + make_interval(secs => $3)
where not exists (select 1 from plugin_versions where plugin_id = $1 and version = $2)
on conflict (plugin_id, version) do update set expires_at = excluded.expires_at
  where version_reservations.expires_at <= now()
returning expires_at::text as held_until
