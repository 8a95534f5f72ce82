-- Forgets a key ($1 limiter, $2 key).
-- params: $1 limiter, $2 key
delete from rate_limits where limiter = $1 and key = $2
