-- Review of an approved plugin's pending update: approve applies its changed fields
-- to the live record, reject discards it (the plugin stays approved). Either way the
-- update is gone and the review recorded.
-- Parameters: $1 plugin id, $2 'approve' or 'reject', $3 reason or null, $4 reviewer (users.id).
-- params: $1 plugin_id, $2 action, $3 reason, $4 reviewer_id
with pending as (
  delete from plugin_pending_updates where plugin_id = $1 returning *
)
update plugins p
   set
       name = case when $2 = 'approve' and 'name' = any(pending.changed) then pending.name else p.name end,
       version = case when $2 = 'approve' and 'version' = any(pending.changed) then pending.version else p.version end,
       author = case when $2 = 'approve' and 'author' = any(pending.changed) then pending.author else p.author end,
       description = case when $2 = 'approve' and 'description' = any(pending.changed) then pending.description else p.description end,
       long_description = case when $2 = 'approve' and 'longDescription' = any(pending.changed) then pending.long_description else p.long_description end,
       download = case when $2 = 'approve' and 'download' = any(pending.changed) then pending.download else p.download end,
       sha256 = case when $2 = 'approve' and 'sha256' = any(pending.changed) then pending.sha256 else p.sha256 end,
       url = case when $2 = 'approve' and 'url' = any(pending.changed) then pending.url else p.url end,
       icon = case when $2 = 'approve' and 'icon' = any(pending.changed) then pending.icon else p.icon end,
       tags = case when $2 = 'approve' and 'tags' = any(pending.changed) then pending.tags else p.tags end,
       permissions = case when $2 = 'approve' and 'permissions' = any(pending.changed) then pending.permissions else p.permissions end,
       screenshots = case when $2 = 'approve' and 'screenshots' = any(pending.changed) then pending.screenshots else p.screenshots end,
       review_action = $2,
       review_reason = $3,
       reviewed_at = now(),
       reviewed_by = $4,
       updated_at = case when $2 = 'approve' then now() else p.updated_at end
  from pending
 where p.id = pending.plugin_id
returning p.id
