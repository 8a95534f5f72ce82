-- Review of a plugin without a pending update: approve makes it public, reject hides
-- it (with the reason), whatever its status was.
-- Parameters: $1 plugin id, $2 'approve' or 'reject', $3 reason or null, $4 reviewer (users.id).
update plugins
   set status = case when $2 = 'approve' then 'approved' else 'rejected' end,
       review_action = $2,
       review_reason = $3,
       reviewed_at = now(),
       reviewed_by = $4,
       updated_at = now()
 where id = $1
returning id
