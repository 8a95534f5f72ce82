-- Reply $4 by user $3 to the rating that user $2 (a username, compared
-- case-insensitively like every username) wrote on plugin $1. No row when that user
-- has no rating on the plugin, or a hidden one that the replier, neither its rater
-- nor an administrator ($5), may not see. `hidden` tells the caller to notify no one.
-- params: $1 plugin_id, $2 rating_user, $3 user_id, $4 body, $5 is_admin
-- not null: rating_user_id
with rated as (
  select r.plugin_id, r.user_id, r.hidden
    from users rater
    join plugin_ratings r on r.user_id = rater.id and r.plugin_id = $1
   where lower(rater.username) = lower($2)
     and (not r.hidden or r.user_id = $3::bigint or $5::boolean)
), created as (
  insert into plugin_rating_replies (plugin_id, rating_user_id, user_id, body)
  select plugin_id, user_id, $3::bigint, $4 from rated
  returning id, created_at, rating_user_id
)
select created.id, created.created_at, created.rating_user_id::text as rating_user_id, rated.hidden
  from created cross join rated
