-- Takes back one hit of a live window ($1 limiter, $2 key).
-- params: $1 limiter, $2 key
update rate_limits set hits = hits - 1
where limiter = $1 and key = $2 and resets_at > now() and hits > 0
