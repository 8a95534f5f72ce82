-- Revokes one of the caller's tokens; another user's matches nothing (404).
-- Answers what the audit entry records of it (never its hash).
-- params: $1 token_id, $2 user_id
-- not null: id
delete from api_tokens where id = $1 and user_id = $2
returning id::text as id, name, scopes, prefix, expires_at
