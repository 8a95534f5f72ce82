-- When a rater's new rating of a plugin last notified its author (src/site/ratings):
-- kept apart from the rating, which a rater may delete and write again, so a
-- delete-and-rate loop notifies (and delivers to the author's webhook) once a day.
create table rating_notices (
  plugin_id text not null references plugins (id) on delete cascade,
  user_id bigint not null references users (id) on delete cascade,
  notified_at timestamptz not null default now(),
  primary key (plugin_id, user_id)
);
