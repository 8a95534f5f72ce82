-- A page of plugins by installs (ties by id), and the total, in one round trip. The
-- count reads the index alone; the page walks plugins_status_installs in order and stops at
-- offset + limit. An offset past the end still answers one row: the total, with a
-- null id.
-- Parameters: $1 viewer (users.id, null for visitors and public=1), $2 true when the
-- viewer sees everything (administrators), $3 status or null, $4 submitter (scope=mine)
-- or null, $5 tag (lower case) or null, $6 featured only, $7 limit, $8 offset.
select total.count::integer as total, r.*
  from (select count(*) from plugins p
         where
       -- Visibility (src/site/plugins/visibility.ts): approved, own, or everything for administrators.
       (p.status = 'approved' or p.submitter_id = $1::bigint or $2::boolean)
   and ($3::text is null or p.status = $3::text)
   and ($4::bigint is null or p.submitter_id = $4::bigint)
   and ($5::text is null or store_lower_tags(p.tags) @> array[$5::text])
   and (not $6::boolean or p.featured)) as total
  left join lateral (
    select p.id from plugins p
     where
       -- Visibility (src/site/plugins/visibility.ts): approved, own, or everything for administrators.
       (p.status = 'approved' or p.submitter_id = $1::bigint or $2::boolean)
   and ($3::text is null or p.status = $3::text)
   and ($4::bigint is null or p.submitter_id = $4::bigint)
   and ($5::text is null or store_lower_tags(p.tags) @> array[$5::text])
   and (not $6::boolean or p.featured)
     order by p.install_count desc, p.id
     limit $7 offset $8) as page on true
  left join plugin_summaries r on r.id = page.id
 order by r.install_count desc, r.id
