-- Delivery $1's attempt (claim $2) failed with status $4 (null: no answer) and
-- error $5; the next one is due at $3, unless that is more than 24 hours after
-- the delivery was queued: then it has failed for good.
update webhook_deliveries
   set status = case when $3 > created_at + interval '24 hours' then 'failed' else 'pending' end,
       next_attempt_at = $3, last_status_code = $4, last_error = $5,
       locked_until = null, claim = null
 where id = $1 and claim = $2 and status = 'pending'
returning status
