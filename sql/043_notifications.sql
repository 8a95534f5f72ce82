-- Notifications for users (src/site/notifications): review decisions for authors,
-- new ratings and replies on their plugins, replies to a rater's rating, and the
-- outcome of a user's report. Written in the transaction of the event itself.
create table notifications (
  id bigint generated always as identity primary key,
  user_id bigint not null references users (id) on delete cascade,
  kind text not null check (kind in ('review.approved', 'review.rejected', 'update.approved', 'update.rejected',
                                     'rating.created', 'reply.created', 'report.resolved')),
  plugin_id text references plugins (id) on delete cascade,
  actor_id bigint references users (id) on delete set null,
  message text not null check (char_length(message) <= 2000),
  read_at timestamptz,
  created_at timestamptz not null default now()
);
-- A user's list, newest first, and their unread count.
create index notifications_user on notifications (user_id, id desc);
create index notifications_unread on notifications (user_id) where read_at is null;
