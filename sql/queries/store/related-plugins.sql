-- Plugins related to $1: approved, sharing a tag with it ($2, lower case) or from the
-- same submitter ($3); most shared tags first, then the same submitter, then the
-- most installed, then id. Never $1 itself. At most $4. The candidates come from
-- the tag and submitter indexes; only the chosen few are read through the view.
select r.*
  from (select p.id,
               (select count(*) from unnest(p.tags_lower) as tag where tag = any ($2::text[])) as shared_tags,
               p.submitter_id = $3::bigint as same_submitter,
               p.install_count
          from plugins p
         where p.status = 'approved'
           and p.id <> $1
           and (p.tags_lower && $2::text[] or p.submitter_id = $3::bigint)
         order by shared_tags desc, same_submitter desc, p.install_count desc, p.id
         limit $4) as chosen
  join plugin_summaries r on r.id = chosen.id
 order by chosen.shared_tags desc, chosen.same_submitter desc, chosen.install_count desc, chosen.id
