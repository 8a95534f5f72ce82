-- Logs one session out.
-- params: $1 token_hash
delete from sessions where token_hash = $1
