-- Personal API tokens (src/site/tokens): a CI job publishes with one instead of a
-- browser session. Like sessions, only the SHA-256 of the secret is stored; the
-- `prefix` (the first characters of the secret) is kept so a user can tell tokens
-- apart in a list. Revoking deletes the row; deleting the user deletes its tokens.
create table api_tokens (
  id bigint generated always as identity primary key,
  user_id bigint not null references users (id) on delete cascade,
  token_hash bytea not null unique,
  name text not null check (char_length(name) between 1 and 100),
  scopes text[] not null check (cardinality(scopes) >= 1 and scopes <@ array['plugins:write', 'media:upload']),
  prefix text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  last_used_at timestamptz
);
-- The caller's list (newest first) and the live-token count at creation.
create index api_tokens_user_created on api_tokens (user_id, created_at desc, id desc);
