-- What a withdrawal needs of plugin $1 (exact id, locked): its status and the version
-- fields it carries live, and those of its pending update when that changes them.
-- params: $1 plugin_id
-- The plugin's own columns, beside its outer-joined pending update.
-- not null: status, version, download
select p.status, p.version, p.download, p.sha256,
       u.changed as pending_changed, u.version as pending_version, u.download as pending_download, u.sha256 as pending_sha256
  from plugins p
  left join plugin_pending_updates u on u.plugin_id = p.id
 where p.id = $1
