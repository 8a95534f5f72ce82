-- The hosted versions of plugin $1 (exact id) among the numbers $2, with their file
-- lists: what a review shows of the live and the proposed version.
-- params: $1 plugin_id, $2 versions
-- not null: size
select version, changelog, sha256, size::text as size, download, status, created_at, entry_count, files,
       manifest, permissions, checks, entry_kind
  from plugin_versions
 where plugin_id = $1 and version = any($2::text[])
