-- One notification of kind $2 about plugin $3 by actor $4 (users.id) with message
-- $5 for each of users $1 (bigint[]), once each, never for the actor themself.
-- A recipient with a webhook gets a delivery queued in the same statement (so in
-- the event's transaction), and the site processes' webhook workers are woken
-- when it commits (LISTEN webhook_deliveries; src/services/site/webhooks/delivery-worker.ts).
-- params: $1 recipients, $2 kind, $3 plugin_id, $4 actor_id, $5 message
with created as (
  insert into notifications (user_id, kind, plugin_id, actor_id, message)
  select distinct recipient, $2, $3, $4::bigint, $5
    from unnest($1::bigint[]) as recipient
   where recipient is distinct from $4::bigint
  returning id, user_id
), queued as (
  insert into webhook_deliveries (user_id, notification_id)
  select c.user_id, c.id from created c join webhooks w on w.user_id = c.user_id
  returning id
)
select pg_notify('webhook_deliveries', '') from (select 1 from queued limit 1) as any_queued
