-- Version $2 of plugin $1 becomes $3 ('withdrawn' or 'removed').
-- params: $1 plugin_id, $2 version, $3 status
update plugin_versions set status = $3, reviewed_at = coalesce(reviewed_at, now())
 where plugin_id = $1 and version = $2
