-- The newest approved version of plugin $1 other than $2, created before it: where the
-- plugin goes back to when $2, its live version, is withdrawn or removed.
-- params: $1 plugin_id, $2 version
select v.version, v.download, v.sha256
  from plugin_versions v
 where v.plugin_id = $1 and v.status = 'approved' and v.version <> $2
   and v.created_at < (select created_at from plugin_versions where plugin_id = $1 and version = $2)
 order by v.created_at desc
 limit 1
