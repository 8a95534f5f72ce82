-- The hosted versions of many plugins at once, with their file lists: the pairs
-- ($1 exact plugin id, $2 version) the review queue shows (include=review), one
-- probe of the versions' primary key each. Of what a package says, its checks
-- only: the queue shows their count of warnings.
-- params: $1 plugin_ids, $2 versions
-- not null: size
select v.plugin_id, v.version, v.changelog, v.sha256, v.size::text as size, v.download, v.status, v.created_at, v.entry_count, v.files,
       v.checks
  from unnest($1::text[], $2::text[]) as wanted (plugin_id, version)
  join plugin_versions v on v.plugin_id = wanted.plugin_id and v.version = wanted.version
