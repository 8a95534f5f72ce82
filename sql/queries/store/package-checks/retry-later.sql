-- A check the site could not finish for a reason of its own (the image host
-- unavailable, its process stopping): due again at $3, the result it had kept.
-- params: $1 plugin_id, $2 claim, $3 due_at
update plugin_package_checks
   set due_at = $3, claim = null, locked_until = null
 where plugin_id = $1 and claim = $2
