-- Counts one hit atomically: concurrent hits from any number of processes
-- serialise on the row. An expired window starts again at 1. A key already at
-- the limit goes to limit + 1 and no further, which marks the refusal (hits over
-- the limit are not counted, so a blocked client does not extend its own block).
-- $1 limiter, $2 key, $3 limit, $4 window in milliseconds.
-- params: $1 limiter, $2 key, $3 limit, $4 window_ms
-- not null: seconds_left
insert into rate_limits as r (limiter, key, hits, resets_at)
values ($1, $2, 1, now() + $4::integer * interval '1 millisecond')
on conflict (limiter, key) do update set
  hits = case when r.resets_at <= now() then 1 else least(r.hits + 1, $3::integer + 1) end,
  resets_at = case when r.resets_at <= now() then excluded.resets_at else r.resets_at end
returning hits, extract(epoch from (resets_at - now()))::float8 as seconds_left
