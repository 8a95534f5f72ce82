-- A plugin's package check as its record shows it; none for a hosted download.
-- params: $1 plugin_id
select status, sha256, size, entry_count, manifest, checks, reason, checked_at, download
  from plugin_package_checks
 where plugin_id = $1
