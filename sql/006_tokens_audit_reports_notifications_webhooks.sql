-- What users and administrators do around the store: personal API tokens, the
-- administrators' audit log, reports of plugins and ratings, notifications, and the
-- webhooks that carry them out.

-- Personal API tokens (src/services/site/tokens): a CI job publishes with one instead of a
-- browser session. Like sessions, only the SHA-256 of the secret is stored; the
-- `prefix` (the first characters of the secret) is kept so a user can tell tokens
-- apart in a list. Revoking deletes the row; deleting the user deletes its tokens.
create table api_tokens (
  id bigint generated always as identity primary key,
  user_id bigint not null references users (id) on delete cascade,
  token_hash bytea not null unique,
  name text not null check (char_length(name) between 1 and 100),
  scopes text[] not null check (cardinality(scopes) >= 1 and scopes <@ array['plugins:write', 'media:upload']),
  prefix text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  last_used_at timestamptz
);
-- The caller's list (newest first) and the live-token count at creation.
create index api_tokens_user_created on api_tokens (user_id, created_at desc, id desc);

-- Administrators' actions (src/services/site/audit) and API token creation and revocation
-- (target 'token', whose target_user is the token's owner): who, what, when, and
-- the before/after of the fields the action changed, written in the same transaction as the action.
-- Append-only: a trigger refuses UPDATE, DELETE and TRUNCATE whoever asks (table
-- owners included, which REVOKE alone would not stop). No foreign keys on purpose:
-- the record outlives a deleted user or plugin, so the actor's name is kept too.
create table audit_log (
  id bigint generated always as identity primary key,
  actor_id bigint not null,
  actor_name text not null,
  action text not null check (char_length(action) between 1 and 64),
  target_type text not null,
  target_plugin text,
  target_user text,
  before jsonb not null default '{}',
  after jsonb not null default '{}',
  at timestamptz not null default now(),
  constraint audit_log_target_type_check check (target_type in ('plugin', 'rating', 'report', 'token'))
);
-- The pages: all entries newest first, or those of one plugin, or of one actor.
create index audit_log_plugin on audit_log (lower(target_plugin), id desc) where target_plugin is not null;
create index audit_log_actor on audit_log (actor_id, id desc);

create function audit_log_refuse_change() returns trigger language plpgsql as $$
begin
  raise exception 'audit_log is append-only (% refused)', tg_op using errcode = 'insufficient_privilege';
end
$$;
create trigger audit_log_append_only before update or delete on audit_log
  for each row execute function audit_log_refuse_change();
create trigger audit_log_no_truncate before truncate on audit_log
  for each statement execute function audit_log_refuse_change();
revoke update, delete, truncate on audit_log from public;

-- Reports of plugins and ratings (src/services/site/reports). Resolving one may hide the
-- rating (plugin_ratings.hidden, sql/003) or unlist the plugin.
create table reports (
  id bigint generated always as identity primary key,
  reporter_id bigint not null references users (id) on delete cascade,
  target_type text not null check (target_type in ('plugin', 'rating')),
  plugin_id text not null references plugins (id) on delete cascade,
  -- The rater, for a report of a rating; null for a report of a plugin.
  rating_user_id bigint references users (id) on delete cascade,
  reason text not null check (reason in ('malware', 'broken', 'spam', 'abuse', 'copyright', 'other')),
  note text not null default '' check (char_length(note) <= 500),
  status text not null default 'open' check (status in ('open', 'resolved')),
  resolution text check (resolution in ('dismiss', 'hide-rating', 'unlist')),
  resolution_reason text check (char_length(resolution_reason) <= 1000),
  resolved_by bigint references users (id) on delete set null,
  resolved_at timestamptz,
  created_at timestamptz not null default now(),
  check ((target_type = 'rating') = (rating_user_id is not null)),
  check ((status = 'resolved') = (resolution is not null))
);
-- One open report per user and target: the second is 409 (a unique violation).
create unique index reports_one_open on reports (reporter_id, plugin_id, coalesce(rating_user_id, 0)) where status = 'open';
-- The queue (by status, oldest first) and the open reports of one target.
create index reports_queue on reports (status, id);
create index reports_target on reports (plugin_id, rating_user_id) where status = 'open';

-- Notifications for users (src/services/site/notifications): review decisions for authors,
-- new ratings and replies on their plugins, replies to a rater's rating, the
-- outcome of a user's report, and a download whose bytes no longer match what was
-- reviewed (sql/007's package checks). Written in the transaction of the event
-- itself.
create table notifications (
  id bigint generated always as identity primary key,
  user_id bigint not null references users (id) on delete cascade,
  kind text not null check (kind in ('review.approved', 'review.rejected', 'update.approved', 'update.rejected',
                                     'rating.created', 'reply.created', 'report.resolved', 'package.changed')),
  plugin_id text references plugins (id) on delete cascade,
  actor_id bigint references users (id) on delete set null,
  message text not null check (char_length(message) <= 2000),
  read_at timestamptz,
  created_at timestamptz not null default now()
);
-- A user's list, newest first, and their unread count.
create index notifications_user on notifications (user_id, id desc);
create index notifications_unread on notifications (user_id) where read_at is null;

-- Webhooks (src/services/site/webhooks): a user's https URL and the secret its deliveries are
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
