-- An author's edit of an approved plugin: it becomes the plugin's pending update,
-- or merges into the one waiting (fields of this edit win, others stay). The live
-- record is not touched. The caller holds the plugin's row lock, so concurrent edits
-- merge one after another.
-- changed_fields: the API names of the changed fields (text[]); then their new
-- values (null for a field not changed), screenshots as JSON text.
-- params: $1 plugin_id, $2 changed_fields
-- params: $3 name, $4 version, $5 author, $6 description, $7 long_description, $8 download, $9 sha256, $10 url,
-- params: $11 icon, $12 tags, $13 permissions, $14 screenshots_json
insert into plugin_pending_updates as pending (plugin_id, changed, name, version, author, description, long_description, download, sha256, url, icon, tags, permissions, screenshots, submitted_at)
values ($1, $2::text[], $3::text, $4::text, $5::text, $6::text, $7::text, $8::text, $9::text, $10::text, $11::text, $12::text[], $13::text[], $14::text::jsonb, now())
on conflict (plugin_id) do update
   set changed = array(select distinct field from unnest(pending.changed || excluded.changed) as field order by field),
       name = case when 'name' = any(excluded.changed) then excluded.name else pending.name end,
       version = case when 'version' = any(excluded.changed) then excluded.version else pending.version end,
       author = case when 'author' = any(excluded.changed) then excluded.author else pending.author end,
       description = case when 'description' = any(excluded.changed) then excluded.description else pending.description end,
       long_description = case when 'longDescription' = any(excluded.changed) then excluded.long_description else pending.long_description end,
       download = case when 'download' = any(excluded.changed) then excluded.download else pending.download end,
       sha256 = case when 'sha256' = any(excluded.changed) then excluded.sha256 else pending.sha256 end,
       url = case when 'url' = any(excluded.changed) then excluded.url else pending.url end,
       icon = case when 'icon' = any(excluded.changed) then excluded.icon else pending.icon end,
       tags = case when 'tags' = any(excluded.changed) then excluded.tags else pending.tags end,
       permissions = case when 'permissions' = any(excluded.changed) then excluded.permissions else pending.permissions end,
       screenshots = case when 'screenshots' = any(excluded.changed) then excluded.screenshots else pending.screenshots end,
       submitted_at = excluded.submitted_at
