-- Approved plugins whose author's edit waits for review (the review queue), oldest
-- edit first (ties by id), and the total, in one round trip. Parameters: $1 limit,
-- $2 offset, $3 submitter (scope=mine) or null (scope=admin: everyone's).
-- Only approved plugins have pending updates (docs/api.md, "Edits and reviews"; a
-- plugin taken down loses its update, sql/002), and only theirs are listed: what
-- waits beside an unapproved plugin is never offered for approval. An offset past
-- the end still answers one row: the total, with a null id.
-- params: $1 limit, $2 offset, $3 submitter_id
select total.count::integer as total, r.*
  from (select count(*) as count from plugin_pending_updates u join plugins p on p.id = u.plugin_id
         where p.status = 'approved' and ($3::bigint is null or p.submitter_id = $3::bigint)) as total
  left join lateral (
    select u.plugin_id, u.submitted_at from plugin_pending_updates u
      join plugins p on p.id = u.plugin_id
     where p.status = 'approved' and ($3::bigint is null or p.submitter_id = $3::bigint)
     order by u.submitted_at, u.plugin_id
     limit $1 offset $2) as page on true
  left join plugin_summaries r on r.id = page.plugin_id
 order by page.submitted_at, page.plugin_id
