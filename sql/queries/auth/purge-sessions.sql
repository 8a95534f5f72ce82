-- The hourly purge of expired sessions.
-- params: none
delete from sessions where expires_at <= now()
