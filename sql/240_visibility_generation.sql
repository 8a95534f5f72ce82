-- A second number beside the store's generation (sql/007), in the same row, that
-- moves only with a committed change to WHAT a visitor may see: a plugin added or
-- deleted, its status or `featured` changed, a version made live or taken out of it
-- (approved, withdrawn, removed), a rating hidden, unhidden or deleted, a reply
-- deleted. Not install counts, rating averages, new ratings or field edits: those
-- move only the store's generation, several times a second under load.
--
-- While PostgreSQL cannot be reached a site process serves the visitors' answers it
-- holds (src/site/store/kept-answers.ts), but only those built under the visibility
-- generation it last read: an answer built before a plugin was hidden, or a version
-- removed for malware, is never served again; one built before an install click is.
--
-- In the store's row, not a row of its own: both bumps then queue on one row lock
-- at commit, in whatever order a transaction queues them, and cannot deadlock.
alter table store_generation add column visibility bigint not null default 1;

create function store_bump_visibility() returns trigger
language plpgsql as $$
begin
  if current_setting('launcher.store_visibility_bumped', true) is distinct from 'on' then
    perform set_config('launcher.store_visibility_bumped', 'on', true);
    update store_generation set visibility = visibility + 1;
  end if;
  return null;
end
$$;

create constraint trigger plugins_bump_visibility_rows
  after insert or delete on plugins
  deferrable initially deferred
  for each row execute function store_bump_visibility();

create constraint trigger plugins_bump_visibility_status
  after update of status, featured on plugins
  deferrable initially deferred
  for each row when (old.status is distinct from new.status or old.featured is distinct from new.featured)
  execute function store_bump_visibility();

-- A version uploaded is pending (nobody else sees it): only one inserted live counts.
create constraint trigger plugin_versions_bump_visibility_insert
  after insert on plugin_versions
  deferrable initially deferred
  for each row when (new.status = 'approved')
  execute function store_bump_visibility();

create constraint trigger plugin_versions_bump_visibility_status
  after update of status on plugin_versions
  deferrable initially deferred
  for each row when (old.status is distinct from new.status)
  execute function store_bump_visibility();

create constraint trigger plugin_versions_bump_visibility_delete
  after delete on plugin_versions
  deferrable initially deferred
  for each row execute function store_bump_visibility();

create constraint trigger plugin_ratings_bump_visibility_hidden
  after update of hidden on plugin_ratings
  deferrable initially deferred
  for each row when (old.hidden is distinct from new.hidden)
  execute function store_bump_visibility();

create constraint trigger plugin_ratings_bump_visibility_delete
  after delete on plugin_ratings
  deferrable initially deferred
  for each row execute function store_bump_visibility();

create constraint trigger plugin_rating_replies_bump_visibility_delete
  after delete on plugin_rating_replies
  deferrable initially deferred
  for each row execute function store_bump_visibility();

-- TRUNCATE has no row triggers; it bumps at once (it locks the whole table anyway).
create trigger plugins_truncate_bumps_visibility
  after truncate on plugins
  for each statement execute function store_bump_visibility();
create trigger plugin_versions_truncate_bumps_visibility
  after truncate on plugin_versions
  for each statement execute function store_bump_visibility();
create trigger plugin_ratings_truncate_bumps_visibility
  after truncate on plugin_ratings
  for each statement execute function store_bump_visibility();
create trigger plugin_rating_replies_truncate_bumps_visibility
  after truncate on plugin_rating_replies
  for each statement execute function store_bump_visibility();
