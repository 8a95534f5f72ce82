-- Webhooks (src/site/webhooks): a user's https URL and the secret its deliveries are
-- signed with (kept in clear: signing needs it), and the delivery queue. A delivery
-- row is written in the transaction of its notification (notifications/create),
-- claimed by any site process with FOR UPDATE SKIP LOCKED under a lease
-- (locked_until, claim), and retried with backoff for 24 hours after created_at.
create table webhooks (
  user_id bigint primary key references users (id) on delete cascade,
  url text not null check (char_length(url) between 9 and 2048),
  secret text not null check (char_length(secret) between 16 and 200),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table webhook_deliveries (
  id bigint generated always as identity primary key,
  user_id bigint not null references users (id) on delete cascade,
  notification_id bigint not null references notifications (id) on delete cascade,
  status text not null default 'pending' check (status in ('pending', 'delivered', 'failed')),
  attempts integer not null default 0 check (attempts >= 0),
  last_status_code integer,
  last_error text check (char_length(last_error) <= 500),
  next_attempt_at timestamptz not null default now(),
  -- The lease of the process delivering it now: until then no other claims it;
  -- `claim` tells that process's outcome from a later claimer's.
  locked_until timestamptz,
  claim uuid,
  delivered_at timestamptz,
  created_at timestamptz not null default now()
);
-- What is due, oldest first (the workers' claim); small: pending rows only.
create index webhook_deliveries_due on webhook_deliveries (next_attempt_at, id) where status = 'pending';
-- A user's delivery history, newest first.
create index webhook_deliveries_user on webhook_deliveries (user_id, id desc);
-- The notification's row (a notification deleted with its user or plugin cascades).
create index webhook_deliveries_notification on webhook_deliveries (notification_id);
