-- The caller's tokens, expired ones included (so the user sees why a job fails), newest first.
-- params: $1 user_id, $2 limit
-- not null: id
select id::text as id, name, scopes, prefix, created_at, expires_at, last_used_at
from api_tokens
where user_id = $1
order by created_at desc, id desc
limit $2
