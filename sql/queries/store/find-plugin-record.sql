-- One plugin as the API shows it (case-insensitive id); the caller applies visibility.
-- params: $1 plugin_id
select *
  from plugin_records
 where lower(id) = lower($1)
