-- Claims up to $3 due deliveries for one attempt each: pending, due at $1 (the
-- worker's clock) and not leased to another process. Rows another process is
-- claiming right now are skipped (SKIP LOCKED), so site processes share the queue.
-- Each claimed row is leased until $2 under claim $4 and its attempt counted.
-- Answers what the attempt needs: the webhook (null when it was just removed) and
-- the notification as GET /apps/api/notifications shows it.
-- params: $1 now, $2 locked_until, $3 limit, $4 claim
-- not null: id, attempts, notification_id, kind, message, notification_created_at
with due as (
  select d.id
    from webhook_deliveries d
   where d.status = 'pending' and d.next_attempt_at <= $1
     and (d.locked_until is null or d.locked_until <= $1)
   order by d.next_attempt_at, d.id
   limit $3
     for update skip locked
), claimed as (
  update webhook_deliveries d
     set locked_until = $2, claim = $4, attempts = d.attempts + 1
    from due
   where d.id = due.id
  returning d.id, d.user_id, d.notification_id, d.attempts
)
select c.id::text as id, c.attempts, w.url, w.secret,
       n.id as notification_id, n.kind, n.plugin_id, actor.username as actor, n.message, n.created_at as notification_created_at
  from claimed c
  join notifications n on n.id = c.notification_id
  left join users actor on actor.id = n.actor_id
  left join webhooks w on w.user_id = c.user_id
 order by c.id
