-- Users, whether they come from the identity provider (provider_subject) or are
-- local accounts (password_hash). Usernames are unique case-insensitively across
-- both kinds, because other records name users by username (ratings, replies): a
-- provider user whose name is already taken gets a suffix ("alice-2") instead.
create table users (
  id bigint generated always as identity primary key,
  provider_subject text unique,
  username text not null,
  avatar text not null default '',
  -- Recomputed at every login: admin_granted, or the name is in ADMIN_USERS.
  is_admin boolean not null default false,
  -- Set by `npm run user -- add NAME --admin`; survives changes to ADMIN_USERS.
  admin_granted boolean not null default false,
  -- argon2id, PHC string; null for users who only log in through the provider.
  password_hash text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index users_username_lower on users (lower(username));

-- Sessions are stored as the SHA-256 of the cookie's random token, so a leaked
-- table cannot be replayed as cookies.
create table sessions (
  token_hash bytea primary key,
  user_id bigint not null references users (id) on delete cascade,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index sessions_expires_at on sessions (expires_at);
create index sessions_user_id on sessions (user_id);
