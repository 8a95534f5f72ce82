-- A local account (password login), administrator when the `user` command says so.
-- params: $1 username, $2 password_hash, $3 is_admin
insert into users (username, password_hash, admin_granted, is_admin)
values ($1, $2, $3::boolean, $3::boolean)
returning id, username, avatar, is_admin
