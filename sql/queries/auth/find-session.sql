-- The user behind a session cookie; an expired row counts as absent even before
-- the hourly purge removes it. `expires_in_ms`: how long it stays live, by the
-- database's clock; `generation`: the session generation of the same snapshot
-- (sql/008_generations.sql), under which a process may keep this answer
-- (src/services/site/auth/kept-sessions.ts).
-- params: $1 token_hash
-- not null: expires_in_ms, generation
select u.id, u.username, u.avatar, u.is_admin,
       (extract(epoch from s.expires_at - now()) * 1000)::float8 as expires_in_ms,
       (select g.generation::text from session_generation g) as generation
from sessions s
join users u on u.id = s.user_id
where s.token_hash = $1 and s.expires_at > now()
