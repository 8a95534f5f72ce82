-- The rating of plugin $1 (exact id) by the user named $2 (any case): the rater's id
-- and canonical name. Hidden ratings count: a report may still name one.
select u.id::text as user_id, u.username
  from plugin_ratings r
  join users u on u.id = r.user_id
 where r.plugin_id = $1 and lower(u.username) = lower($2)
