-- The approved plugins of other submitters whose compact name (store_compact, as
-- search compares names) is nearest $3, and whose compact id is nearest $4, at
-- least $5 alike (pg_trgm similarity): a few of each, found nearest first by the
-- trigram GiST indexes of sql/004, not by reading every plugin. Plugin $1 itself
-- and the plugins of submitter $2 are left out.
-- params: $1 plugin_id, $2 submitter_id, $3 name_key, $4 id_key, $5 threshold
-- Columns of plugins and a literal, through a union.
-- not null: id, name, close
select id, name, close
  from (
    (select p.id, p.name, 'name' as close, similarity(store_compact(p.name), $3::text) as alike
       from plugins p
      where p.status = 'approved' and p.id <> $1::text and p.submitter_id <> $2::bigint
      order by store_compact(p.name) <-> $3::text
      limit 3)
    union all
    (select p.id, p.name, 'id' as close, similarity(store_compact(p.id), $4::text) as alike
       from plugins p
      where p.status = 'approved' and p.id <> $1::text and p.submitter_id <> $2::bigint
      order by store_compact(p.id) <-> $4::text
      limit 3)
  ) nearest
 where alike >= $5::real
 order by alike desc, id
