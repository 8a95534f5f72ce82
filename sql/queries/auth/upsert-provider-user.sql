-- One row per provider subject; username and avatar follow the provider at every
-- login. A username taken by another row fails on users_username_lower (and the
-- whole statement with it, pin included); the caller then tries the next name.
-- $1 subject, $2 username, $3 avatar, $4 the ADMIN_USERS names (lower-cased),
-- $5 the lower-cased name to pin to this subject when no one holds it yet (a
-- listed name under which the subject logs in now), else null.
--
-- Administrator: a listed name is pinned to this subject, now or earlier. (The
-- pin inserted by `claim` is not visible to the rest of this statement, hence the
-- two tests.)
-- params: $1 subject, $2 username, $3 avatar, $4 admin_names, $5 pin_name
with claim as (
  insert into admin_pins (admin_name, provider_subject)
  select $5::text, $1::text
  where $5::text is not null
  on conflict (admin_name) do nothing
  returning admin_name
),
admin as (
  select exists (select 1 from claim)
      or exists (select 1 from admin_pins where provider_subject = $1::text and admin_name = any ($4::text[])) as is_admin
)
insert into users (provider_subject, username, avatar, is_admin)
select $1::text, $2::text, $3::text, admin.is_admin from admin
on conflict (provider_subject) do update
  set username = excluded.username,
      avatar = excluded.avatar,
      is_admin = excluded.is_admin,
      updated_at = now()
returning id, username, avatar, is_admin, (select admin_name from claim) as pinned_name
