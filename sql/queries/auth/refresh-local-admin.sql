-- At each password login: administrator when granted by the `user` command or
-- listed in ADMIN_USERS ($2).
-- params: $1 user_id, $2 listed
update users
set is_admin = admin_granted or $2::boolean, updated_at = now()
where id = $1
returning id, username, avatar, is_admin
