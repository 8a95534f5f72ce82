-- Reports of plugins and ratings (src/site/reports), and hidden ratings.
--
-- A hidden rating leaves the ratings pages and the plugin's star counts (and so
-- rating_count, rating_sum, rating_score, the list's ratingAvg) and comes back to
-- both, exactly, when unhidden: the star trigger of 011_plugin_ratings.sql counts
-- only visible ratings and now also runs when `hidden` changes.
alter table plugin_ratings add column hidden boolean not null default false;

create or replace function store_count_stars() returns trigger
language plpgsql as $$
begin
  if tg_op in ('UPDATE', 'DELETE') and not old.hidden then
    update plugins set
      stars_1 = stars_1 - (old.stars = 1)::integer,
      stars_2 = stars_2 - (old.stars = 2)::integer,
      stars_3 = stars_3 - (old.stars = 3)::integer,
      stars_4 = stars_4 - (old.stars = 4)::integer,
      stars_5 = stars_5 - (old.stars = 5)::integer
    where id = old.plugin_id;
  end if;
  if tg_op in ('UPDATE', 'INSERT') and not new.hidden then
    update plugins set
      stars_1 = stars_1 + (new.stars = 1)::integer,
      stars_2 = stars_2 + (new.stars = 2)::integer,
      stars_3 = stars_3 + (new.stars = 3)::integer,
      stars_4 = stars_4 + (new.stars = 4)::integer,
      stars_5 = stars_5 + (new.stars = 5)::integer
    where id = new.plugin_id;
  end if;
  return null;
end
$$;
drop trigger plugin_ratings_count_stars on plugin_ratings;
create trigger plugin_ratings_count_stars
  after insert or delete or update of stars, plugin_id, hidden on plugin_ratings
  for each row execute function store_count_stars();

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
