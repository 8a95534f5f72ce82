-- A delivery's attempt (under its claim) failed with status (null: no answer) and
-- reason; the next one is due at next_at, unless that is more than 24 hours after
-- the delivery was queued: then it has failed for good.
-- params: $1 delivery_id, $2 claim, $3 next_at, $4 status, $5 reason
update webhook_deliveries
   set status = case when $3 > created_at + interval '24 hours' then 'failed' else 'pending' end,
       next_attempt_at = $3, last_status_code = $4, last_error = $5,
       locked_until = null, claim = null
 where id = $1 and claim = $2 and status = 'pending'
returning status
