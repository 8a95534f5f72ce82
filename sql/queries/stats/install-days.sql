-- Installs of plugin $1 (its exact id) on each of the last $2 UTC days, today
-- included, oldest first, a day without a row as 0: one row per day from
-- generate_series, each joined on plugin_install_days' primary key.
select to_char(series.day, 'YYYY-MM-DD') as date, coalesce(counted.installs, 0) as installs
  from generate_series((now() at time zone 'utc')::date - ($2::int - 1), (now() at time zone 'utc')::date, interval '1 day') as series (day)
  left join plugin_install_days counted on counted.plugin_id = $1 and counted.day = series.day::date
 order by series.day
