-- ADMIN_USERS names provider users by username, which users can change at their
-- provider. The first provider subject that logs in under a listed name is pinned
-- to it here; from then on that name grants administrator rights to that subject
-- only, whatever names the subject or anyone else uses later. Local accounts,
-- whose names only the operator sets, are matched by name as before.
create table admin_pins (
  -- A name of ADMIN_USERS, lower-cased (usernames are unique case-insensitively).
  admin_name text primary key check (admin_name = lower(admin_name) and length(admin_name) between 1 and 64),
  provider_subject text not null references users (provider_subject) on delete cascade,
  pinned_at timestamptz not null default now()
);
create index admin_pins_provider_subject on admin_pins (provider_subject);

-- Provider users who are administrators now got there by name at their last
-- login: they are the subjects that first matched.
insert into admin_pins (admin_name, provider_subject)
select lower(username), provider_subject
from users
where is_admin and provider_subject is not null and length(username) <= 64
on conflict (admin_name) do nothing;
