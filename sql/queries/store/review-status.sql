-- Review of a plugin without a pending update: approve makes it public, reject hides
-- it (with the reason), whatever its status was. The plugin is decided as it stands:
-- an update left beside a plugin that was not approved (none should be: a plugin
-- taken down loses it, trigger of sql/002_plugins.sql) is discarded, never
-- applied by this or a later approval.
-- Parameters: $1 plugin id, $2 'approve' or 'reject', $3 reason or null, $4 reviewer (users.id).
-- params: $1 plugin_id, $2 action, $3 reason, $4 reviewer_id
with discarded as (
  delete from plugin_pending_updates where plugin_id = $1
)
update plugins
   set status = case when $2 = 'approve' then 'approved' else 'rejected' end,
       review_action = $2,
       review_reason = $3,
       reviewed_at = now(),
       reviewed_by = $4,
       updated_at = now()
 where id = $1
returning id
