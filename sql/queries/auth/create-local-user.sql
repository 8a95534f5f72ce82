insert into users (username, password_hash, admin_granted, is_admin)
values ($1, $2, $3::boolean, $3::boolean)
returning id, username, avatar, is_admin
