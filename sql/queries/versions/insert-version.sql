-- A new pending version of plugin $1 (exact id, locked by the caller); no row when
-- the number was ever used (the primary key decides, atomically).
-- params: $1 plugin_id, $2 version, $3 changelog, $4 sha256, $5 size, $6 download
-- params: $7 entry_count, $8 files_json
insert into plugin_versions (plugin_id, version, changelog, sha256, size, download, entry_count, files)
values ($1, $2, $3, $4, $5, $6, $7, $8::text::jsonb)
on conflict (plugin_id, version) do nothing
returning version, changelog, sha256, size::text as size, download, status, created_at, entry_count
