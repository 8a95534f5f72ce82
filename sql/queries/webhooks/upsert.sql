-- Sets user $1's webhook to URL $2. The secret $3 is stored when the webhook is
-- new, or when $4 (rotate) is true; otherwise the stored one stays. `created`
-- tells a new row from an update (xmax is 0 only on a row this statement inserted).
-- params: $1 user_id, $2 url, $3 secret, $4 rotate
-- not null: created
insert into webhooks (user_id, url, secret) values ($1, $2, $3)
on conflict (user_id) do update
   set url = excluded.url,
       secret = case when $4::boolean then excluded.secret else webhooks.secret end,
       updated_at = now()
returning url, secret, created_at, updated_at, (xmax = 0) as created
