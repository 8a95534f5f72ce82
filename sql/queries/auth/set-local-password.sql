update users
set password_hash = $2, updated_at = now()
where lower(username) = lower($1) and password_hash is not null
returning id, username
