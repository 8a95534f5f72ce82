-- Version $2 of plugin $1 (exact id) with its file list and what its package says
-- (sql/007), whatever its status.
-- params: $1 plugin_id, $2 version
-- not null: size
select version, changelog, sha256, size::text as size, download, status, created_at, entry_count, files,
       manifest, permissions, checks, entry_kind
  from plugin_versions
 where plugin_id = $1 and version = $2
