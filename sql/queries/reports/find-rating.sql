-- The rating of plugin $1 (exact id) by the user named $2 (any case): the rater's id
-- and canonical name, and whether it is hidden (then only its rater and
-- administrators may name it in a report).
-- params: $1 plugin_id, $2 username
-- not null: user_id
select u.id::text as user_id, u.username, r.hidden
  from plugin_ratings r
  join users u on u.id = r.user_id
 where r.plugin_id = $1 and lower(u.username) = lower($2)
