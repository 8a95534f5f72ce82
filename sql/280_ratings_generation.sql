-- A third number in the store's row (sql/007, sql/240) that moves with every
-- committed change to what a ratings page shows that the store's generation does not
-- follow: any rating written, changed, hidden, unhidden or deleted (a rating a hidden
-- rater writes starts hidden and moves no star count, yet changes its rater's
-- `myRating`), any reply added, changed or deleted, and a user's name or avatar
-- (shown beside their ratings and replies). Plugins themselves (status, submitter,
-- the star counts, deletion) move the store's generation.
--
-- A logged-in caller's ratings page is kept per user, tagged with both numbers read
-- before it was built (src/site/ratings/kept-pages.ts), and reused only while both
-- are unchanged: exact across every site process, as the numbers move in the
-- committing transaction. Replies and names are rare beside install clicks, so the
-- kept lists (store generation only) do not rebuild for them.
--
-- In the same row as the other two: every bump queues on one row lock at commit and
-- cannot deadlock with another.
alter table store_generation add column ratings bigint not null default 1;

create function store_bump_ratings() returns trigger
language plpgsql as $$
begin
  if current_setting('launcher.store_ratings_bumped', true) is distinct from 'on' then
    perform set_config('launcher.store_ratings_bumped', 'on', true);
    update store_generation set ratings = ratings + 1;
  end if;
  return null;
end
$$;

create constraint trigger plugin_ratings_bump_ratings
  after insert or update or delete on plugin_ratings
  deferrable initially deferred
  for each row execute function store_bump_ratings();

create constraint trigger plugin_rating_replies_bump_ratings
  after insert or update or delete on plugin_rating_replies
  deferrable initially deferred
  for each row execute function store_bump_ratings();

create constraint trigger users_bump_ratings
  after update of username, avatar on users
  deferrable initially deferred
  for each row when (old.username is distinct from new.username or old.avatar is distinct from new.avatar)
  execute function store_bump_ratings();

-- TRUNCATE has no row triggers; it bumps at once (it locks the whole table anyway).
create trigger plugin_ratings_truncate_bumps_ratings
  after truncate on plugin_ratings
  for each statement execute function store_bump_ratings();
create trigger plugin_rating_replies_truncate_bumps_ratings
  after truncate on plugin_rating_replies
  for each statement execute function store_bump_ratings();
