-- Plugins related to $1: approved, sharing a tag with it ($2, lower case) or from the
-- same submitter ($3); most shared tags first, then the same submitter, then the
-- most installed, then id. Never $1 itself. At most $4.
select r.*
  from plugin_summaries r
 where r.status = 'approved'
   and r.id <> $1
   and (store_lower_tags(r.tags) && $2::text[] or r.submitter_id = $3::bigint)
 order by (select count(*) from unnest(store_lower_tags(r.tags)) as tag where tag = any ($2::text[])) desc,
          (r.submitter_id = $3::bigint) desc,
          r.install_count desc,
          r.id
 limit $4
