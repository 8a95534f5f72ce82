-- Revokes one of the caller's tokens; another user's matches nothing (404).
delete from api_tokens where id = $1 and user_id = $2 returning id
