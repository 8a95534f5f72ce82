-- Installs of each plugin named in $1 (ids in lower case) that the viewer may see
-- (the rule of src/services/site/store/visibility.ts: approved, or submitted by $2, or $3
-- for administrators) on each of the last $4 UTC days, today included, oldest
-- first, a day without a row as 0: one row per plugin, its days and counts as two
-- arrays in the same order. Each plugin is found by plugins_id_lower and each day
-- by plugin_install_days' primary key.
-- params: $1 plugin_ids, $2 viewer_id, $3 sees_all, $4 days
-- not null: id, dates, installs
select p.id,
       array_agg(to_char(series.day, 'YYYY-MM-DD') order by series.day) as dates,
       array_agg(coalesce(counted.installs, 0)::int order by series.day) as installs
  from plugins p
 cross join generate_series((now() at time zone 'utc')::date - ($4::int - 1), (now() at time zone 'utc')::date, interval '1 day') as series (day)
  left join plugin_install_days counted on counted.plugin_id = p.id and counted.day = series.day::date
 where lower(p.id) = any ($1::text[])
   and (p.status = 'approved' or p.submitter_id = $2::bigint or $3::boolean)
 group by p.id
