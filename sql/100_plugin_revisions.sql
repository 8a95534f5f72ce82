-- Review integrity (issue 17): what an administrator approves is what goes live.
--
-- Every plugin's record, as its author and administrators see it, carries a
-- `revision`: an opaque string that changes with every change to the plugin or to
-- its pending update. A review may name the revision it was made on, and is refused
-- (409) when the plugin changed meanwhile (src/site/store/plugin-writes.ts).
--
-- Both tables take their numbers from one sequence, so every change draws a number
-- larger than any drawn before, and the record's revision is the larger of the
-- plugin's and its pending update's: an edit of either gives a number never shown
-- before. The sequence lives in PostgreSQL, so every site process agrees.
-- Counters (install clicks, the star counts kept from ratings) do not count as a
-- change: they are not what an administrator reviews, and a review would otherwise
-- be refused whenever a player installs the plugin.
create sequence plugin_revisions;

alter table plugins add column revision bigint not null default nextval('plugin_revisions');
alter table plugin_pending_updates add column revision bigint not null default nextval('plugin_revisions');

create function store_next_revision() returns trigger
language plpgsql as $$
begin
  new.revision := nextval('plugin_revisions');
  return new;
end
$$;

-- What a review reads: the content, the status, featured, the submitter, the last
-- review; updated_at moves with every content change and review.
create trigger plugins_next_revision
  before update on plugins
  for each row when (
    (old.name, old.version, old.author, old.description, old.long_description, old.download, old.sha256,
     old.url, old.icon, old.tags, old.permissions, old.screenshots, old.status, old.featured, old.submitter_id,
     old.review_action, old.review_reason, old.reviewed_at, old.reviewed_by, old.updated_at)
    is distinct from
    (new.name, new.version, new.author, new.description, new.long_description, new.download, new.sha256,
     new.url, new.icon, new.tags, new.permissions, new.screenshots, new.status, new.featured, new.submitter_id,
     new.review_action, new.review_reason, new.reviewed_at, new.reviewed_by, new.updated_at))
  execute function store_next_revision();

-- Every write of a pending update (an author's edit merging into it) is a change.
create trigger plugin_pending_updates_next_revision
  before update on plugin_pending_updates
  for each row execute function store_next_revision();

-- A pending update exists only beside an approved plugin (docs/api.md): a
-- plugin taken down (a rejection, a report's "unlist") loses it in the same
-- statement, so no later approval can apply an update nobody reviewed. Updates left
-- beside unapproved plugins before this migration go the same way.
create function store_discard_pending_update() returns trigger
language plpgsql as $$
begin
  delete from plugin_pending_updates where plugin_id = new.id;
  return null;
end
$$;

create trigger plugins_discard_pending_update
  after update of status on plugins
  for each row when (new.status <> 'approved')
  execute function store_discard_pending_update();

delete from plugin_pending_updates u
 using plugins p
 where p.id = u.plugin_id and p.status <> 'approved';

-- The views gain `revision` (last, as CREATE OR REPLACE VIEW requires).
create or replace view plugin_records as
select p.id, p.submitter_id, submitter.username as submitter, p.name, p.version, p.author, p.description,
       p.long_description, p.download, p.sha256, p.url, p.icon, p.tags, p.permissions, p.screenshots,
       p.status, p.featured, p.install_count, p.rating_count, p.rating_sum, p.rating_score,
       p.stars_1, p.stars_2, p.stars_3, p.stars_4, p.stars_5,
       p.review_action, p.review_reason, p.reviewed_at, p.created_at, p.updated_at,
       pending.changed as pending_changed, pending.name as pending_name, pending.version as pending_version,
       pending.author as pending_author, pending.description as pending_description,
       pending.long_description as pending_long_description, pending.download as pending_download,
       pending.sha256 as pending_sha256, pending.url as pending_url, pending.icon as pending_icon,
       pending.tags as pending_tags, pending.permissions as pending_permissions,
       pending.screenshots as pending_screenshots, pending.submitted_at as pending_submitted_at,
       greatest(p.revision, pending.revision)::text as revision
  from plugins p
  left join users submitter on submitter.id = p.submitter_id
  left join plugin_pending_updates pending on pending.plugin_id = p.id;

create or replace view plugin_summaries as
select id, submitter_id, submitter, name, version, author, description, download, sha256, url, icon, tags,
       permissions, screenshots, status, featured, install_count, rating_count, rating_sum, rating_score,
       review_action, review_reason, reviewed_at, created_at, updated_at,
       pending_changed, pending_name, pending_version, pending_author, pending_description,
       pending_long_description, pending_download, pending_sha256, pending_url, pending_icon, pending_tags,
       pending_permissions, pending_screenshots, pending_submitted_at, revision
  from plugin_records;
