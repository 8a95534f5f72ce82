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
