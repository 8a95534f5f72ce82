-- Deletes user $2's rating of plugin $1; its replies go with it (foreign key on
-- delete cascade) and the trigger takes its stars off the plugin's counts.
-- params: $1 plugin_id, $2 user_id
delete from plugin_ratings
 where plugin_id = $1 and user_id = $2::bigint
returning stars
