-- The pending versions (any plugin) holding a file whose bytes the removal of
-- version $2 of plugin $1 just blocked (found through the files' hash index): each
-- gets the blocked-file check.
-- params: $1 plugin_id, $2 version
select distinct f.plugin_id, f.version
  from blocked_files b
  join plugin_version_files f on f.sha256 = b.sha256
  join plugin_versions v on v.plugin_id = f.plugin_id and v.version = f.version
 where b.plugin_id = $1 and b.version = $2
   and v.status = 'pending'
