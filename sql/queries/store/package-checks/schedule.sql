-- The watch: arms up to its share of the approved plugins' live outside links
-- whose last check is older than the period, oldest first, so that over the period
-- every one is checked once, spread evenly: each run arms count × interval / period
-- (at least one). Run under an advisory lock by one process at a time.
-- params: $1 period_ms, $2 interval_ms
with watched as (
  select c.plugin_id, c.checked_at
    from plugin_package_checks c
    join plugins p on p.id = c.plugin_id and p.status = 'approved' and p.download = c.download
   where c.due_at is null
), share as (
  select greatest(1, ceil(count(*) * $2::float8 / $1::float8))::int as n from watched
), armed as (
  select plugin_id
    from watched
   where checked_at is null or checked_at < now() - make_interval(secs => $1::float8 / 1000)
   order by checked_at nulls first
   limit (select n from share)
)
update plugin_package_checks c
   set due_at = now()
  from armed
 where c.plugin_id = armed.plugin_id
returning c.plugin_id
