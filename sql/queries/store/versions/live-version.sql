-- What approved plugin $1 now serves (in an approval's transaction): its hash, if
-- known, and the state and checks of the hosted version it carries (null when its
-- download is not one of its versions: an outside link).
-- params: $1 plugin_id
select p.sha256, v.status as version_status, v.checks
  from plugins p
  left join plugin_versions v
    on v.plugin_id = p.id and v.version = p.version and v.download = p.download and v.sha256 = p.sha256
 where p.id = $1 and p.status = 'approved'
