-- A new plugin, pending review. Nothing is inserted when the id is taken in any case
-- (the primary key or plugins_id_lower): no row comes back, and the caller answers 409.
-- params: $1 id, $2 submitter_id, $3 name, $4 version, $5 author, $6 description,
-- params: $7 long_description, $8 download, $9 sha256, $10 url, $11 icon, $12 tags,
-- params: $13 permissions, $14 screenshots_json, $15 featured
insert into plugins (id, submitter_id, name, version, author, description, long_description, download, sha256,
                     url, icon, tags, permissions, screenshots, featured)
values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::text[], $13::text[], $14::text::jsonb, $15)
on conflict do nothing
returning id
