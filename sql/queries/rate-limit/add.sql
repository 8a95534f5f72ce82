-- Adds counted hits to many keys of one limiter in one statement (the batched
-- limiter's flush, src/db/batched-rate-limiter.ts): $2 keys (unique, sorted, so
-- two processes flushing the same keys lock them in the same order), $3 hits per
-- key. An expired window starts again with the hits added. Counts stop at
-- limit + 1, as rate-limit/hit does. $1 limiter, $4 limit, $5 window in ms.
-- Only the keys whose count is now above $6 are returned: a flush asks for those
-- near their limit, the only ones a process keeps, so that thousands of keys far
-- from it (a new address per update check) cost the site no rows to read; a hit
-- that waits for its count passes 0 and gets its row.
-- params: $1 limiter, $2 keys, $3 hits, $4 limit, $5 window_ms, $6 above
-- not null: seconds_left
with added as (
  insert into rate_limits as r (limiter, key, hits, resets_at)
  select $1, added.key, least(added.hits, $4::integer + 1), now() + $5::integer * interval '1 millisecond'
    from unnest($2::text[], $3::integer[]) as added (key, hits)
  on conflict (limiter, key) do update set
    hits = case when r.resets_at <= now() then excluded.hits else least(r.hits + excluded.hits, $4::integer + 1) end,
    resets_at = case when r.resets_at <= now() then excluded.resets_at else r.resets_at end
  returning key, hits, extract(epoch from (resets_at - now()))::float8 as seconds_left
)
select key, hits, seconds_left from added where hits > $6::integer
