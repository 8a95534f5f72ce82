-- The versions npm run recheck computes the checks of again: every pending version
-- and every live one (approved, and what its plugin serves) whose manifest was
-- read, in a stable order. Each is then read under its plugin's lock
-- (version-for-checks.sql).
-- params: none
select v.plugin_id, v.version
  from plugin_versions v
  join plugins p on p.id = v.plugin_id
 where v.manifest_source is not null
   and (v.status = 'pending'
        or (v.status = 'approved' and v.version = p.version and v.download = p.download and v.sha256 = p.sha256))
 order by v.plugin_id, v.created_at, v.version
