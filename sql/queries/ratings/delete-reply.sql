-- Deletes reply $1 of plugin $2; no row when it is already gone.
-- params: $1 reply_id, $2 plugin_id
delete from plugin_rating_replies
 where id = $1::bigint and plugin_id = $2
returning id
