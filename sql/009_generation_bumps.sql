-- What moves each number of sql/008: one function, bump_generation, called by
-- every trigger below with the number it moves ('store', 'visibility', 'ratings',
-- 'sessions').
--
-- The triggers are deferred constraint triggers, so a bump runs at commit, after
-- every other lock the transaction takes: transactions queue on the number's row
-- only for the moment of their commit, and cannot deadlock on it. A transaction
-- moves each number once, however many rows it changes (a flag local to the
-- transaction). TRUNCATE has no row triggers: it bumps at once (it locks the whole
-- table anyway).

create function bump_generation() returns trigger
language plpgsql as $$
begin
  if current_setting('launcher.bumped_' || tg_argv[0], true) is distinct from 'on' then
    perform set_config('launcher.bumped_' || tg_argv[0], 'on', true);
    -- No ELSE: a trigger naming no number fails rather than moving none.
    case tg_argv[0]
      when 'store' then update store_generation set generation = generation + 1;
      when 'visibility' then update store_generation set visibility = visibility + 1;
      when 'ratings' then update store_generation set ratings = ratings + 1;
      when 'sessions' then update session_generation set generation = generation + 1;
    end case;
  end if;
  return null;
end
$$;

-- The store's generation: every change to plugins, their pending updates,
-- versions and package checks, and the submitter's name lists show.
create constraint trigger plugins_bump_generation
  after insert or update or delete on plugins
  deferrable initially deferred
  for each row execute function bump_generation('store');
create trigger plugins_truncate_bumps_generation
  after truncate on plugins
  for each statement execute function bump_generation('store');

-- Visitors never see pending updates, but authors and administrators do (a
-- record's `pendingUpdate` and `revision`, the review queue): an author's edit of
-- an approved plugin writes only plugin_pending_updates, and must show in the very
-- next answer of its author and of every administrator, in every process.
create constraint trigger plugin_pending_updates_bump_generation
  after insert or update or delete on plugin_pending_updates
  deferrable initially deferred
  for each row execute function bump_generation('store');
create trigger plugin_pending_updates_truncate_bumps_generation
  after truncate on plugin_pending_updates
  for each statement execute function bump_generation('store');

create constraint trigger plugin_versions_bump_generation
  after insert or update or delete on plugin_versions
  deferrable initially deferred
  for each row execute function bump_generation('store');
create trigger plugin_versions_truncate_bumps_generation
  after truncate on plugin_versions
  for each statement execute function bump_generation('store');

-- A package check's result shows in its owner's and administrators' records
-- (sql/007); a claim's lease alone changes nothing shown.
create constraint trigger plugin_package_checks_bump_generation
  after insert or delete or update of status, sha256, size, entry_count, manifest, checks, reason, checked_at on plugin_package_checks
  deferrable initially deferred
  for each row execute function bump_generation('store');

create constraint trigger users_bump_generation
  after update of username on users
  deferrable initially deferred
  for each row when (old.username is distinct from new.username)
  execute function bump_generation('store');

-- The visibility: plugins added or deleted, their status or `featured` changed.
create constraint trigger plugins_bump_visibility_rows
  after insert or delete on plugins
  deferrable initially deferred
  for each row execute function bump_generation('visibility');

create constraint trigger plugins_bump_visibility_status
  after update of status, featured on plugins
  deferrable initially deferred
  for each row when (old.status is distinct from new.status or old.featured is distinct from new.featured)
  execute function bump_generation('visibility');

-- A plugin's content: its download, hash or version (an approved update, a version
-- made live, an administrator replacing a compromised link), and what moderators
-- edit out (name, texts, links, icon, screenshots, tags, permissions, author). An
-- answer built before such an edit must not be served stale during an outage: it
-- would hand launchers the old download and hash, or show what a moderator removed.
-- Not the counters (install_count, the stars behind the rating columns) nor
-- updated_at alone, which install clicks and ratings write all the time.
create constraint trigger plugins_bump_visibility_content
  after update of name, version, author, description, long_description, download, sha256,
                  url, icon, tags, permissions, screenshots, submitter_id
  on plugins
  deferrable initially deferred
  for each row when (
    (old.name, old.version, old.author, old.description, old.long_description, old.download,
     old.sha256, old.url, old.icon, old.tags, old.permissions, old.screenshots, old.submitter_id)
    is distinct from
    (new.name, new.version, new.author, new.description, new.long_description, new.download,
     new.sha256, new.url, new.icon, new.tags, new.permissions, new.screenshots, new.submitter_id))
  execute function bump_generation('visibility');

-- A version uploaded is pending (nobody else sees it): only one inserted live counts.
create constraint trigger plugin_versions_bump_visibility_insert
  after insert on plugin_versions
  deferrable initially deferred
  for each row when (new.status = 'approved')
  execute function bump_generation('visibility');

create constraint trigger plugin_versions_bump_visibility_status
  after update of status on plugin_versions
  deferrable initially deferred
  for each row when (old.status is distinct from new.status)
  execute function bump_generation('visibility');

create constraint trigger plugin_versions_bump_visibility_delete
  after delete on plugin_versions
  deferrable initially deferred
  for each row execute function bump_generation('visibility');

create constraint trigger plugin_ratings_bump_visibility_hidden
  after update of hidden on plugin_ratings
  deferrable initially deferred
  for each row when (old.hidden is distinct from new.hidden)
  execute function bump_generation('visibility');

create constraint trigger plugin_ratings_bump_visibility_delete
  after delete on plugin_ratings
  deferrable initially deferred
  for each row execute function bump_generation('visibility');

create constraint trigger plugin_rating_replies_bump_visibility_delete
  after delete on plugin_rating_replies
  deferrable initially deferred
  for each row execute function bump_generation('visibility');

create trigger plugins_truncate_bumps_visibility
  after truncate on plugins
  for each statement execute function bump_generation('visibility');
create trigger plugin_versions_truncate_bumps_visibility
  after truncate on plugin_versions
  for each statement execute function bump_generation('visibility');
create trigger plugin_ratings_truncate_bumps_visibility
  after truncate on plugin_ratings
  for each statement execute function bump_generation('visibility');
create trigger plugin_rating_replies_truncate_bumps_visibility
  after truncate on plugin_rating_replies
  for each statement execute function bump_generation('visibility');

-- The ratings: any rating (a rating a hidden rater writes starts hidden and moves
-- no star count, yet changes its rater's `myRating`) or reply, and a user's name
-- or avatar.
create constraint trigger plugin_ratings_bump_ratings
  after insert or update or delete on plugin_ratings
  deferrable initially deferred
  for each row execute function bump_generation('ratings');

create constraint trigger plugin_rating_replies_bump_ratings
  after insert or update or delete on plugin_rating_replies
  deferrable initially deferred
  for each row execute function bump_generation('ratings');

create constraint trigger users_bump_ratings
  after update of username, avatar on users
  deferrable initially deferred
  for each row when (old.username is distinct from new.username or old.avatar is distinct from new.avatar)
  execute function bump_generation('ratings');

create trigger plugin_ratings_truncate_bumps_ratings
  after truncate on plugin_ratings
  for each statement execute function bump_generation('ratings');
create trigger plugin_rating_replies_truncate_bumps_ratings
  after truncate on plugin_rating_replies
  for each statement execute function bump_generation('ratings');

-- The sessions' generation. An expired session is refused by its kept expiry
-- already: deleting it changes nothing.
create constraint trigger sessions_delete_bumps_session_generation
  after delete on sessions
  deferrable initially deferred
  for each row when (old.expires_at > now())
  execute function bump_generation('sessions');

create constraint trigger sessions_update_bumps_session_generation
  after update on sessions
  deferrable initially deferred
  for each row execute function bump_generation('sessions');

create constraint trigger users_bump_session_generation
  after update of username, avatar, is_admin on users
  deferrable initially deferred
  for each row when (old.username is distinct from new.username
                     or old.avatar is distinct from new.avatar
                     or old.is_admin is distinct from new.is_admin)
  execute function bump_generation('sessions');

create trigger sessions_truncate_bumps_session_generation
  after truncate on sessions
  for each statement execute function bump_generation('sessions');
