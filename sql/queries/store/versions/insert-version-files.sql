-- Every file entry of version $2 of plugin $1 (just inserted) with the SHA-256 of
-- its bytes, in the package's order ($3 names, $4 hashes, one pair per entry).
-- params: $1 plugin_id, $2 version, $3 names, $4 hashes
insert into plugin_version_files (plugin_id, version, position, name, sha256)
select $1, $2, f.n - 1, f.name, f.sha256
  from unnest($3::text[], $4::text[]) with ordinality as f (name, sha256, n)
