-- One install click of approved plugin $1 (case-insensitive id) from client address $2,
-- in one statement. The click row of (plugin, address) is inserted, or moved to now
-- when the last counted click is over an hour old; only then does the count go up.
-- Concurrent clicks from one address queue on that row: exactly one counts.
-- The plugin row is locked first (FOR NO KEY UPDATE, which the click row's foreign
-- key check does not conflict with), so clicks of one plugin take turns, none is
-- lost, and a click that does not count still answers the count as committed by
-- the click before it (a plain read would see the statement's older snapshot).
-- A counted click also adds one to the plugin's UTC day (plugin_install_days, the
-- installs-over-time statistics), in the same statement, so the series and
-- install_count never disagree.
-- No row comes back when the plugin is absent or not approved.
-- params: $1 plugin_id, $2 address
-- not null: install_count
with plugin as (
  select id, install_count from plugins where lower(id) = lower($1) and status = 'approved'
     for no key update
),
counted as (
  insert into plugin_install_clicks as click (plugin_id, client_address, counted_at)
  select id, $2, now() from plugin
  on conflict (plugin_id, client_address) do update
     set counted_at = excluded.counted_at
   where click.counted_at <= excluded.counted_at - interval '1 hour'
  returning plugin_id
),
per_day as (
  insert into plugin_install_days as day (plugin_id, day, installs)
  select plugin_id, (now() at time zone 'utc')::date, 1 from counted
  on conflict (plugin_id, day) do update set installs = day.installs + 1
),
bumped as (
  update plugins set install_count = install_count + 1
   where id = (select plugin_id from counted)
  returning id, install_count
)
select plugin.id, coalesce((select install_count from bumped), plugin.install_count) as install_count
  from plugin
