-- The user behind a session cookie; an expired row counts as absent even before
-- the hourly purge removes it.
select u.id, u.username, u.avatar, u.is_admin
from sessions s
join users u on u.id = s.user_id
where s.token_hash = $1 and s.expires_at > now()
