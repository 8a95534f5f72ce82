-- Delivery $1 (claim $2) succeeded at $3 with status $4. Only the claimant of a
-- row still pending may finish it: a row is delivered once and never sent again.
-- params: $1 delivery_id, $2 claim, $3 delivered_at, $4 status
update webhook_deliveries
   set status = 'delivered', delivered_at = $3, last_status_code = $4, last_error = null,
       locked_until = null, claim = null
 where id = $1 and claim = $2 and status = 'pending'
returning id
