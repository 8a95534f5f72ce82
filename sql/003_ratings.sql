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
-- `hidden` changes. The moderation outlives the rating (rating_moderation, below),
-- and so does the last notice of a new rating to its plugin's author
-- (rating_notices).

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

-- Moderation of ratings that outlives the rating (src/services/site/reports): one record per
-- (plugin, rater). Were hiding on the rating row alone, a rater whose rating was
-- hidden would delete it, rate again and be back in the lists and the statistics.
-- A rating written while its rater's record says hidden starts hidden (the trigger
-- below, whatever writes it), until an administrator unhides it.
create table rating_moderation (
  plugin_id text not null references plugins (id) on delete cascade,
  user_id bigint not null references users (id) on delete cascade,
  hidden boolean not null,
  changed_by bigint references users (id) on delete set null,
  changed_at timestamptz not null default now(),
  primary key (plugin_id, user_id)
);

-- A new rating of a hidden rater is hidden before the star trigger (above) counts
-- it, so it never counts. The plugin row's lock, which that trigger takes anyway,
-- is taken first: a hide holding it (set_rating_hidden) has committed its record
-- before we read it.
create function store_rating_starts_hidden() returns trigger
language plpgsql as $$
begin
  perform 1 from plugins where id = new.plugin_id for no key update;
  if exists (select 1 from rating_moderation m
              where m.plugin_id = new.plugin_id and m.user_id = new.user_id and m.hidden) then
    new.hidden := true;
  end if;
  return new;
end
$$;
create trigger plugin_ratings_start_hidden
  before insert on plugin_ratings
  for each row execute function store_rating_starts_hidden();

-- Hides ($3 true) or shows ($3 false) user $2's rating of plugin $1 by administrator
-- $4: the record first, then the rating if there is one (the star trigger moves the
-- counts). One row, whether it was hidden before; none when showing a rater with
-- neither a rating nor a record (nothing to show). Hiding needs no rating: one
-- deleted after it was reported stays hidden when it comes back.
-- Statements in turn, not one: after waiting for the plugin's lock, the update must
-- see a rating committed meanwhile.
create function set_rating_hidden(p_plugin text, p_user bigint, p_hidden boolean, p_by bigint)
returns table (was_hidden boolean)
language plpgsql as $$
declare
  rated boolean;
  recorded boolean;
begin
  perform 1 from plugins where id = p_plugin for no key update;
  select r.hidden into rated from plugin_ratings r where r.plugin_id = p_plugin and r.user_id = p_user;
  select m.hidden into recorded from rating_moderation m where m.plugin_id = p_plugin and m.user_id = p_user;
  if not p_hidden and rated is null and recorded is null then
    return;
  end if;
  insert into rating_moderation as m (plugin_id, user_id, hidden, changed_by)
  values (p_plugin, p_user, p_hidden, p_by)
  on conflict (plugin_id, user_id) do update
     set hidden = excluded.hidden, changed_by = excluded.changed_by, changed_at = now();
  update plugin_ratings set hidden = p_hidden
   where plugin_id = p_plugin and user_id = p_user and hidden is distinct from p_hidden;
  return query select coalesce(rated, false) or coalesce(recorded, false);
end
$$;

-- When a rater's new rating of a plugin last notified its author (src/services/site/ratings):
-- kept apart from the rating, which a rater may delete and write again, so a
-- delete-and-rate loop notifies (and delivers to the author's webhook) once a day.
create table rating_notices (
  plugin_id text not null references plugins (id) on delete cascade,
  user_id bigint not null references users (id) on delete cascade,
  notified_at timestamptz not null default now(),
  primary key (plugin_id, user_id)
);
