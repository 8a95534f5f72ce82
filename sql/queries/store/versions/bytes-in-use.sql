-- Whether any version (any plugin, any status) has the bytes $1: a refused upload's
-- file is deleted from the image host only when none does. Rare (an upload refused
-- by a block check), so it may read the table rather than keep an index for it.
-- params: $1 sha256
-- not null: used
select exists (select 1 from plugin_versions where sha256 = $1::text) as used
