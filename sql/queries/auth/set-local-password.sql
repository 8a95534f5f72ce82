-- Sets a local account's password (the `user` command); no row when there is no such local account.
-- params: $1 username, $2 password_hash
update users
set password_hash = $2, updated_at = now()
where lower(username) = lower($1) and password_hash is not null
returning id, username
