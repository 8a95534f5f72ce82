-- Delivery $1 (claim $2) cannot be attempted at all (its webhook is gone): failed with reason $3.
-- params: $1 delivery_id, $2 claim, $3 reason
update webhook_deliveries
   set status = 'failed', last_error = $3, locked_until = null, claim = null
 where id = $1 and claim = $2 and status = 'pending'
returning id
