-- Removes user $1's webhook and cancels its pending deliveries (an in-flight one's
-- outcome is then ignored: the workers only finish rows still pending).
-- params: $1 user_id
with removed as (
  delete from webhooks where user_id = $1 returning user_id
), cancelled as (
  update webhook_deliveries
     set status = 'failed', last_error = 'webhook_removed', locked_until = null, claim = null
   where user_id = $1 and status = 'pending'
  returning id
)
select (select count(*) from removed)::int as removed, (select count(*) from cancelled)::int as cancelled
