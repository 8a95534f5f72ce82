-- A page of user $1's webhook deliveries, newest first, and their total, in one row.
-- Parameters: $1 user, $2 limit, $3 offset. Index: webhook_deliveries_user.
-- params: $1 user_id, $2 limit, $3 offset
-- not null: total, deliveries
select (select count(*) from webhook_deliveries where user_id = $1) as total,
       coalesce((select json_agg(entry order by entry.id desc)
                   from (select d.id, d.notification_id, n.kind, d.status, d.attempts, d.last_status_code,
                                d.last_error, case when d.status = 'pending' then d.next_attempt_at end as next_attempt_at,
                                d.delivered_at, d.created_at
                           from webhook_deliveries d
                           join notifications n on n.id = d.notification_id
                          where d.user_id = $1
                          order by d.id desc
                          limit $2 offset $3) entry), '[]')::text as deliveries
