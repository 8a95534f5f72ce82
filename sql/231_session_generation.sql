-- A number that grows with every committed change that can end a session or change
-- what a session's user is: a session deleted (logout, "log out everywhere", a
-- deleted user) or changed, and a user's name, avatar or administrator flag changed.
-- Each site process keeps the sessions it looked up, tagged with the number it read
-- before the lookup (src/site/auth/kept-sessions.ts), and reuses one only while the
-- number is unchanged and the session's own expiry is ahead; the number is read with
-- the store's generation in one shared statement (sql/queries/site/generations.sql),
-- so a logged-in request needs no query of its own. Bumped in the committing
-- transaction, as store_generation is (sql/007), so a logout on one process takes
-- effect on every other at once. Logins only add sessions, which no process has
-- kept yet: they do not bump it, nor does the purge of sessions already expired.
create table session_generation (
  only_row boolean primary key default true check (only_row),
  generation bigint not null
);
insert into session_generation (only_row, generation) values (true, 1);

create function session_bump_generation() returns trigger
language plpgsql as $$
begin
  if current_setting('launcher.session_generation_bumped', true) is distinct from 'on' then
    perform set_config('launcher.session_generation_bumped', 'on', true);
    update session_generation set generation = generation + 1;
  end if;
  return null;
end
$$;

-- An expired session is refused by its kept expiry already: deleting it changes nothing.
create constraint trigger sessions_delete_bumps_session_generation
  after delete on sessions
  deferrable initially deferred
  for each row when (old.expires_at > now())
  execute function session_bump_generation();

create constraint trigger sessions_update_bumps_session_generation
  after update on sessions
  deferrable initially deferred
  for each row execute function session_bump_generation();

create constraint trigger users_bump_session_generation
  after update of username, avatar, is_admin on users
  deferrable initially deferred
  for each row when (old.username is distinct from new.username
                     or old.avatar is distinct from new.avatar
                     or old.is_admin is distinct from new.is_admin)
  execute function session_bump_generation();

create trigger sessions_truncate_bumps_session_generation
  after truncate on sessions
  for each statement execute function session_bump_generation();
