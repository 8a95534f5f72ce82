insert into sessions (token_hash, user_id, expires_at)
values ($1, $2, now() + make_interval(secs => $3::double precision))
