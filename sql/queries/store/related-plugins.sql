-- Plugins related to $1: approved, sharing a tag with it ($2, lower case) or from the
-- same submitter ($3); most shared tags first, then the same submitter, then the
-- most installed, then id. Never $1 itself. At most $4. The choice is
-- store_related_plugins (sql/005_related.sql), which walks indexes
-- level by level instead of scoring every plugin that shares a tag; only the
-- chosen few are read through the view.
-- params: $1 plugin_id, $2 tags, $3 submitter_id, $4 limit
select r.*
  from store_related_plugins($1::text, $2::text[], $3::bigint, $4::integer) with ordinality as chosen
  join plugin_summaries r on r.id = chosen.id
 order by chosen.ordinality
