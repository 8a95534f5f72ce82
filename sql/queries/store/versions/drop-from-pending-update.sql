-- The pending update of plugin $1 no longer proposes version $2 (withdrawn or
-- removed): its version, download and sha256 changes go, and the whole update when
-- nothing else is left in it (a pending update changes at least one field).
-- params: $1 plugin_id, $2 version
with proposing as (
  select plugin_id, array(select field from unnest(changed) as field
                           where field not in ('version', 'download', 'sha256') order by field) as rest
    from plugin_pending_updates
   where plugin_id = $1 and version = $2 and 'version' = any(changed)
),
emptied as (
  delete from plugin_pending_updates u using proposing
   where u.plugin_id = proposing.plugin_id and cardinality(proposing.rest) = 0
)
update plugin_pending_updates u
   set changed = proposing.rest
  from proposing
 where u.plugin_id = proposing.plugin_id and cardinality(proposing.rest) > 0
