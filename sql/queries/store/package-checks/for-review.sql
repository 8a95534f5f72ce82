-- The check of the download a review would approve, locked against a result
-- landing mid-review; none for a hosted download.
-- params: $1 plugin_id
select status, sha256, download
  from plugin_package_checks
 where plugin_id = $1
   for update
