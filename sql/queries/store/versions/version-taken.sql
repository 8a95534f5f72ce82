-- Whether plugin $1 (its exact id) ever had version $2, in any status (a number is
-- never reused), or an upload holds it now (reserve-version.sql).
-- params: $1 plugin_id, $2 version
-- not null: taken
select exists (select 1 from plugin_versions where plugin_id = $1 and version = $2)
  or exists (select 1 from version_reservations where plugin_id = $1 and version = $2 and expires_at > now()) as taken
