-- Logs a user out everywhere.
-- params: $1 user_id
delete from sessions where user_id = $1
