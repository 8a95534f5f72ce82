-- An edit applied to the live record at once (an author's edit of a pending or
-- rejected plugin, any administrator's edit).
-- changed_fields: the API names of the changed fields (text[]); then their new
-- values (null for a field not changed), screenshots as JSON text; featured: null
-- for unchanged; reopen: true to put a rejected plugin back to pending.
-- params: $1 plugin_id, $2 changed_fields
-- params: $3 name, $4 version, $5 author, $6 description, $7 long_description, $8 download, $9 sha256, $10 url,
-- params: $11 icon, $12 tags, $13 permissions, $14 screenshots_json
-- params: $15 featured, $16 reopen
update plugins
   set
       name = case when 'name' = any($2::text[]) then $3::text else name end,
       version = case when 'version' = any($2::text[]) then $4::text else version end,
       author = case when 'author' = any($2::text[]) then $5::text else author end,
       description = case when 'description' = any($2::text[]) then $6::text else description end,
       long_description = case when 'longDescription' = any($2::text[]) then $7::text else long_description end,
       download = case when 'download' = any($2::text[]) then $8::text else download end,
       sha256 = case when 'sha256' = any($2::text[]) then $9::text else sha256 end,
       url = case when 'url' = any($2::text[]) then $10::text else url end,
       icon = case when 'icon' = any($2::text[]) then $11::text else icon end,
       tags = case when 'tags' = any($2::text[]) then $12::text[] else tags end,
       permissions = case when 'permissions' = any($2::text[]) then $13::text[] else permissions end,
       screenshots = case when 'screenshots' = any($2::text[]) then $14::text::jsonb else screenshots end,
       featured = coalesce($15::boolean, featured),
       status = case when $16::boolean then 'pending' else status end,
       updated_at = now()
 where id = $1
