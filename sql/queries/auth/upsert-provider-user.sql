-- One row per provider subject. Username, avatar and the admin flag follow the
-- provider (and ADMIN_USERS) at every login. A username taken by another row fails
-- on users_username_lower; the caller then tries the next candidate name.
insert into users (provider_subject, username, avatar, is_admin)
values ($1, $2, $3, $4)
on conflict (provider_subject) do update
  set username = excluded.username,
      avatar = excluded.avatar,
      is_admin = excluded.is_admin,
      updated_at = now()
returning id, username, avatar, is_admin
