-- The visibility generation (sql/240) moves also when a plugin's content changes:
-- its download, hash or version (an approved update, a version made live, an
-- administrator replacing a compromised link), and what moderators edit out (name,
-- texts, links, icon, screenshots, tags, permissions, author). An answer built before
-- such an edit must not be served stale during an outage: it would hand launchers
-- the old download and hash, or show what a moderator removed.
--
-- Not the counters (install_count, the stars behind the rating columns) nor
-- updated_at alone: install clicks and ratings write those several times a second
-- under load, and an answer with an older count is still what a visitor may see.
-- Content edits are rare beside them, so this adds no churn.
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
  execute function store_bump_visibility();
