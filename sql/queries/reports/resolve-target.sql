-- Resolves every open report of one target (plugin $1, rating of user $2 or null for
-- the plugin itself) with resolution $3, reason $4, by administrator $5: the action
-- settles the target, so each reporter hears the same outcome.
-- Returns the reporters (for their notifications) and the reports resolved.
-- params: $1 plugin_id, $2 rating_user_id, $3 resolution, $4 reason, $5 admin_id
-- not null: reporter_id
update reports
   set status = 'resolved', resolution = $3, resolution_reason = $4, resolved_by = $5, resolved_at = now()
 where status = 'open' and plugin_id = $1 and rating_user_id is not distinct from $2::bigint
returning id, reporter_id::text as reporter_id
