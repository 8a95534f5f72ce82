-- Version $2 of plugin $1 (exact id) with its file list, whatever its status.
select version, changelog, sha256, size::text as size, download, status, created_at, entry_count, files
  from plugin_versions
 where plugin_id = $1 and version = $2
