-- The live window of a key, if any ($1 limiter, $2 key).
-- params: $1 limiter, $2 key
-- not null: seconds_left
select hits, extract(epoch from (resets_at - now()))::float8 as seconds_left
from rate_limits
where limiter = $1 and key = $2 and resets_at > now()
