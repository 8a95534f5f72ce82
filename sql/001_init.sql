-- Users, whether they come from the identity provider (provider_subject) or are
-- local accounts (password_hash). Usernames are unique case-insensitively.
create table users (
  id bigint generated always as identity primary key,
  provider_subject text unique,
  username text not null,
  avatar text not null default '',
  is_admin boolean not null default false,
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
