-- A page of reports in status $1, grouped by target (the target whose oldest report
-- came first leads; within a target, oldest first), each with its reporter and the
-- number of reports of its target in that status, and the total, in one row.
-- Parameters: $1 status, $2 limit, $3 offset. Index: reports_queue.
-- params: $1 status, $2 limit, $3 offset
-- not null: total, reports
with listed as (
  select r.*, count(*) over (partition by r.plugin_id, r.rating_user_id) as target_count,
         min(r.id) over (partition by r.plugin_id, r.rating_user_id) as target_first
    from reports r
   where r.status = $1
)
select (select count(*) from listed) as total,
       coalesce((select json_agg(entry order by entry.target_first, entry.id)
                   from (select l.id, l.target_type, l.plugin_id, rater.username as rating_user, reporter.username as reporter,
                                l.reason, l.note, l.status, l.resolution, l.resolution_reason, l.created_at, l.resolved_at,
                                l.target_count, l.target_first
                           from listed l
                           join users reporter on reporter.id = l.reporter_id
                           left join users rater on rater.id = l.rating_user_id
                          order by l.target_first, l.id
                          limit $2 offset $3) entry), '[]')::text as reports
