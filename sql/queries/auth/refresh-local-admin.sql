-- At each password login: administrator when granted by the `user` command or
-- listed in ADMIN_USERS ($2).
update users
set is_admin = admin_granted or $2::boolean, updated_at = now()
where id = $1
returning id, username, avatar, is_admin
