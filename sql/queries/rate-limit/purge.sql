-- Deletes up to $1 expired windows (any limiter), oldest first, through the
-- resets_at index: a bounded amount of work per call.
-- params: $1 batch
delete from rate_limits
where (limiter, key) in (
  select limiter, key from rate_limits where resets_at <= now() order by resets_at limit $1
)
