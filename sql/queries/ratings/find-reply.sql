-- Reply $1 if it answers a rating of plugin $2, with its author and the rater
-- (users.id as text) and whether that rating is hidden.
-- params: $1 reply_id, $2 plugin_id
-- not null: user_id, rating_user_id
select reply.id, reply.user_id::text as user_id, reply.rating_user_id::text as rating_user_id, rated.hidden
  from plugin_rating_replies reply
  join plugin_ratings rated on rated.plugin_id = reply.plugin_id and rated.user_id = reply.rating_user_id
 where reply.id = $1::bigint and reply.plugin_id = $2
