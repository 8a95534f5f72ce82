-- Users and what keeps them signed in: accounts, sessions, the shared rate-limit
-- counters and the administrators' pins. (sql/001..008 hold the schema as the
-- migrations before the first release left it, one file per concern, with final
-- definitions: src/db/pre-release-chain.ts names those migrations, and
-- scripts/check-folded-schema.ts proves the schema the same. Later migrations are
-- appended after them.)

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

-- Rate limits shared by every site process: one fixed-window counter per
-- (limiter, key). Unlogged on purpose: the counters are worth nothing after a
-- crash (losing them only forgives a few attempts), and skipping the WAL makes
-- each hit a cheap write.
create unlogged table rate_limits (
  -- Which limit ("login:name", "store:click"...), so two limits may use the same key.
  limiter text not null check (length(limiter) between 1 and 40),
  -- Client address, user name...; longer keys arrive hashed (src/db/shared-rate-limiter.ts).
  key text not null check (length(key) between 1 and 200),
  -- Hits counted in this window; limit + 1 marks a key that was refused.
  hits integer not null check (hits >= 0),
  resets_at timestamptz not null,
  primary key (limiter, key)
);
-- The purge of expired windows reads this instead of the whole table.
create index rate_limits_resets_at on rate_limits (resets_at);

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
