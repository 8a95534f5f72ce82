-- What the checks of a new version of plugin $1 (exact id) compare with: the
-- plugin's status and own permissions, and the hosted version it serves, when it
-- serves one (its permissions and entry kind; manifest null for a version uploaded
-- before manifests were read).
-- params: $1 plugin_id
-- The plugin's own columns beside its outer-joined version, and a test.
-- not null: status, permissions, has_manifest
select p.status, p.permissions, v.version, v.manifest is not null as has_manifest,
       v.permissions as version_permissions, v.entry_kind
  from plugins p
  left join plugin_versions v
    on v.plugin_id = p.id and v.version = p.version and v.download = p.download and v.sha256 = p.sha256
       and v.status = 'approved'
 where p.id = $1
