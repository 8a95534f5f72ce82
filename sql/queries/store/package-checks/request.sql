-- An administrator asks for a check now: due at once (a claim under way keeps its
-- lease and result; this runs after it). No row: the plugin has no outside link.
-- params: $1 plugin_id
update plugin_package_checks
   set due_at = now()
 where plugin_id = (select id from plugins where lower(id) = lower($1))
returning plugin_id
