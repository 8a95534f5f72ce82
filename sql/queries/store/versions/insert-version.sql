-- A new pending version of plugin $1 (exact id, locked by the caller); no row when
-- the number was ever used (the primary key decides, atomically). With what its
-- package says (sql/007): the normalised manifest, the file as found, the image
-- host's findings, the permissions, the checks and the entry kind.
-- params: $1 plugin_id, $2 version, $3 changelog, $4 sha256, $5 size, $6 download
-- params: $7 entry_count, $8 files_json, $9 manifest_json, $10 manifest_source_json
-- params: $11 findings_json, $12 permissions_json, $13 checks_json, $14 entry_kind
-- not null: size
insert into plugin_versions (plugin_id, version, changelog, sha256, size, download, entry_count, files,
                             manifest, manifest_source, findings, permissions, checks, entry_kind)
values ($1, $2, $3, $4, $5, $6, $7, $8::text::jsonb,
        $9::text::jsonb, $10::text::jsonb, $11::text::jsonb, $12::text::jsonb, $13::text::jsonb, $14)
on conflict (plugin_id, version) do nothing
returning version, changelog, sha256, size::text as size, download, status, created_at, entry_count,
          manifest, permissions, checks, entry_kind
