-- The package checks of a page of plugins (include=review), one round trip.
-- params: $1 plugin_ids
select plugin_id, status, sha256, size, entry_count, manifest, checks, reason, checked_at
  from plugin_package_checks
 where plugin_id = any($1::text[])
