-- The files of version $2 of plugin $1 whose bytes are blocked (sql/007), in the
-- package's order: the blocked-file check of a version already stored.
-- params: $1 plugin_id, $2 version
select f.name
  from plugin_version_files f
 where f.plugin_id = $1 and f.version = $2
   and exists (select 1 from blocked_files b where b.sha256 = f.sha256)
 order by f.position
