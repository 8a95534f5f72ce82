-- The user and scopes behind a live token, in one round trip; last_used_at is
-- written at most once a minute, so a busy CI job does not update the row on
-- every request.
-- params: $1 token_hash
-- not null: id, user_id
with found as (
  select t.id, t.scopes, t.last_used_at, u.id as user_id, u.username, u.avatar
  from api_tokens t
  join users u on u.id = t.user_id
  where t.token_hash = $1 and t.expires_at > now()
), touched as (
  update api_tokens set last_used_at = now()
  from found
  where api_tokens.id = found.id
    and (found.last_used_at is null or found.last_used_at < now() - interval '1 minute')
)
select id::text as id, scopes, user_id::text as user_id, username, avatar from found
