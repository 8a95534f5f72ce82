delete from sessions where expires_at <= now()
