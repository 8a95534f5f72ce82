-- Version $2 of plugin $1 was just removed for malware: the bytes of its files are
-- blocked from then on (sql/007), except empty files, which every package may
-- have. Answers how many hashes are newly blocked.
-- params: $1 plugin_id, $2 version
with blocked as (
  insert into blocked_files (sha256, name, plugin_id, version)
  select distinct on (f.sha256) f.sha256, f.name, f.plugin_id, f.version
    from plugin_version_files f
   where f.plugin_id = $1 and f.version = $2
     and f.sha256 <> 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'
   order by f.sha256, f.position
  on conflict (sha256) do nothing
  returning sha256
)
select count(*)::int as blocked from blocked
