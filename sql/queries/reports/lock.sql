-- Report $1 with its target, locked for its resolution.
-- params: $1 report_id
-- not null: id, status, target_type, reason, note, created_at, plugin_id
select r.id, r.status, r.target_type, r.reason, r.note, r.created_at, r.plugin_id, r.rating_user_id::text as rating_user_id, rater.username as rating_user
  from reports r
  left join users rater on rater.id = r.rating_user_id
 where r.id = $1
   for update of r
