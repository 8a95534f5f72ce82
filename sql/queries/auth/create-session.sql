-- A session for a login: the cookie's token hashed, live for ttl_seconds.
-- params: $1 token_hash, $2 user_id, $3 ttl_seconds
insert into sessions (token_hash, user_id, expires_at)
values ($1, $2, now() + make_interval(secs => $3::double precision))
