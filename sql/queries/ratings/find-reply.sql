-- Reply $1 if it answers a rating of plugin $2, with its author (users.id as text).
select id, user_id::text as user_id
  from plugin_rating_replies
 where id = $1::bigint and plugin_id = $2
