-- Reply $4 by user $3 to the rating that user $2 (a username, compared
-- case-insensitively like every username) wrote on plugin $1. No row when that user
-- has no rating on the plugin.
insert into plugin_rating_replies (plugin_id, rating_user_id, user_id, body)
select rated.plugin_id, rated.user_id, $3::bigint, $4
  from users rater
  join plugin_ratings rated on rated.user_id = rater.id and rated.plugin_id = $1
 where lower(rater.username) = lower($2)
returning id, created_at, rating_user_id::text as rating_user_id
