-- Version $2 of plugin $1 was just removed (lock-bytes.sql held on its bytes $3):
-- the bytes are marked removed unless another live version (any plugin) has them.
-- Answers whether they are removed now (marked here or before): then the image host
-- deletes the file.
-- params: $1 plugin_id, $2 version, $3 sha256
with marked as (
  insert into removed_packages (sha256)
  select $3::text
   where not exists (
     select 1 from plugin_versions
      where sha256 = $3::text and status = 'approved' and not (plugin_id = $1::text and version = $2::text))
  on conflict (sha256) do nothing
  returning sha256
)
select exists (select 1 from marked) or exists (select 1 from removed_packages where sha256 = $3::text) as removed
