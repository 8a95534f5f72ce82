-- The checks of version $2 of plugin $1 computed again (a removal blocked one of
-- its files, or npm run recheck), with what they were computed from.
-- params: $1 plugin_id, $2 version, $3 manifest_json, $4 permissions_json
-- params: $5 checks_json, $6 entry_kind
update plugin_versions
   set manifest = $3::text::jsonb, permissions = $4::text::jsonb, checks = $5::text::jsonb, entry_kind = $6
 where plugin_id = $1 and version = $2
