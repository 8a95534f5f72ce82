-- Ratings (one per user and plugin) and the replies to them. The plugin's star
-- distribution (plugins.stars_1..stars_5, from which rating_count, rating_sum and
-- rating_score are generated) is kept by a trigger in the same transaction as the
-- rating's change: the UPDATE of the plugin row takes its row lock, so concurrent
-- ratings queue on it and no change is ever lost or counted twice.
--
-- A hidden rating (a moderator's resolution of a report, sql/006) leaves the
-- ratings pages and the plugin's star counts (and so rating_count, rating_sum,
-- rating_score, the list's ratingAvg) and comes back to both, exactly, when
-- unhidden: the star trigger counts only visible ratings and also runs when
-- `hidden` changes.

create table plugin_ratings (
  plugin_id text not null references plugins (id) on delete cascade,
  user_id bigint not null references users (id) on delete cascade,
  stars smallint not null check (stars between 1 and 5),
  comment text not null default '' check (char_length(comment) <= 500),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  hidden boolean not null default false,
  primary key (plugin_id, user_id)
);
-- Ratings pages: newest first, ties by user.
create index plugin_ratings_page on plugin_ratings (plugin_id, updated_at desc, user_id);
create index plugin_ratings_user on plugin_ratings (user_id);

create table plugin_rating_replies (
  id bigint generated always as identity primary key,
  plugin_id text not null,
  -- The user whose rating this answers.
  rating_user_id bigint not null,
  user_id bigint not null references users (id) on delete cascade,
  body text not null check (char_length(body) between 1 and 500),
  created_at timestamptz not null default now(),
  -- Deleting a rating deletes its replies.
  foreign key (plugin_id, rating_user_id) references plugin_ratings (plugin_id, user_id) on delete cascade
);
create index plugin_rating_replies_rating on plugin_rating_replies (plugin_id, rating_user_id, created_at desc, id desc);
create index plugin_rating_replies_user on plugin_rating_replies (user_id);

create function store_count_stars() returns trigger
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
create trigger plugin_ratings_count_stars
  after insert or delete or update of stars, plugin_id, hidden on plugin_ratings
  for each row execute function store_count_stars();
