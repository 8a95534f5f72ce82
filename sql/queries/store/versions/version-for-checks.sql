-- Version $2 of plugin $1 as its checks are computed again from it: what the image
-- host reported (the manifest as found, the findings, every file) and its checks now.
-- params: $1 plugin_id, $2 version
-- not null: submitter_id, files
select v.plugin_id, v.version, v.status, p.submitter_id::text as submitter_id,
       v.manifest_source, v.findings, v.checks,
       (select coalesce(json_agg(json_build_object('name', f.name, 'sha256', f.sha256) order by f.position), '[]'::json)
          from plugin_version_files f where f.plugin_id = v.plugin_id and f.version = v.version) as files
  from plugin_versions v
  join plugins p on p.id = v.plugin_id
 where v.plugin_id = $1 and v.version = $2
