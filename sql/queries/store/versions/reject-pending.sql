-- Plugin $1 was taken down (unlisted, its pending update discarded): its pending
-- versions are rejected with it.
-- params: $1 plugin_id
update plugin_versions set status = 'rejected', reviewed_at = now()
 where plugin_id = $1 and status = 'pending'
