-- Version $2 of plugin $1 becomes $3 ('withdrawn' or 'removed').
update plugin_versions set status = $3, reviewed_at = coalesce(reviewed_at, now())
 where plugin_id = $1 and version = $2
