-- Package checks of outside download links (issue 33): the store fetches the file
-- behind every `download` it does not host, inspects it as a hosted package, pins
-- what it checked at approval and watches it for change afterwards
-- (src/services/site/store/package-checks/).
--
-- One row per plugin whose download under review is an outside link: the pending
-- update's download when an update changes it, else the live one. A hosted
-- download (one of the plugin's versions on the image host) has no row. The row is
-- kept by a deferred trigger on plugins and plugin_pending_updates, so every write
-- path (create, edit, review, versions) agrees without knowing of it: when the
-- download or the hash the author gave changes, the row is reset to pending and due
-- now; a hash change alone, with the bytes already known, is decided again at once.
--
-- The row is also the job: due_at (null: nothing to do) is when a process should
-- fetch it; a claim leases it (claim, locked_until) with FOR UPDATE SKIP LOCKED, so
-- any site process may run it, a crashed one's lease runs out and the row is taken
-- again, and a result is kept only by the claim that fetched the download still
-- under review (a row reset meanwhile drops the old claim).
create table plugin_package_checks (
  plugin_id text primary key references plugins (id) on delete cascade,
  download plugin_download not null,
  -- The hash the record under review gives (the author's; after approval, the pin).
  expected_sha256 plugin_sha256,
  -- True when the download checked is the live one of an approved plugin with no
  -- other under review: differing bytes are then `changed`, not `mismatch`.
  status text not null default 'pending'
    check (status in ('pending', 'ok', 'unreachable', 'refused', 'mismatch', 'changed')),
  sha256 plugin_sha256,
  size bigint check (size >= 0),
  entry_count integer check (entry_count >= 0),
  manifest jsonb check (jsonb_typeof(manifest) = 'object'),
  checks jsonb check (jsonb_typeof(checks) = 'array'),
  reason text check (char_length(reason) <= 500),
  checked_at timestamptz,
  due_at timestamptz default now(),
  claim uuid,
  locked_until timestamptz,
  attempts integer not null default 0
);
-- The claim: due rows, oldest due first.
create index plugin_package_checks_due on plugin_package_checks (due_at) where due_at is not null;
-- The schedule: approved links by the time of their last check.
create index plugin_package_checks_checked on plugin_package_checks (checked_at nulls first) where due_at is null;

-- What a row says once its bytes are known and only the expected hash moved.
create function package_check_decided(status text, sha256 text, expected text, watching boolean) returns text
language sql immutable parallel safe as $$
  select case
    when status not in ('ok', 'mismatch', 'changed') or sha256 is null then status
    when expected is null or expected = sha256 then 'ok'
    when watching then 'changed'
    else 'mismatch'
  end
$$;

-- Brings one plugin's row in line with its record (see the top of this file).
create function package_check_sync(target text) returns void
language plpgsql as $$
declare
  p record;
  u record;
  wanted text;
  expected text;
begin
  select id, download, sha256, status into p from plugins where id = target;
  if not found then
    return;
  end if;
  select changed, download, sha256 into u from plugin_pending_updates where plugin_id = target;
  wanted := p.download;
  expected := p.sha256;
  if found and 'download' = any(u.changed) then
    wanted := u.download;
    -- The live hash (a pin of the old file, perhaps) says nothing of a new download.
    expected := null;
  end if;
  if found and 'sha256' = any(u.changed) then
    expected := u.sha256;
  end if;
  if exists (select 1 from plugin_versions v where v.plugin_id = target and v.download = wanted) then
    delete from plugin_package_checks where plugin_id = target;
    return;
  end if;
  insert into plugin_package_checks (plugin_id, download, expected_sha256)
  values (target, wanted, expected)
  on conflict (plugin_id) do update
     set download = excluded.download,
         expected_sha256 = excluded.expected_sha256,
         status = case when plugin_package_checks.download = excluded.download
                       then package_check_decided(plugin_package_checks.status, plugin_package_checks.sha256, excluded.expected_sha256,
                                                  p.status = 'approved' and excluded.download = p.download)
                       else 'pending' end,
         sha256 = case when plugin_package_checks.download = excluded.download then plugin_package_checks.sha256 end,
         size = case when plugin_package_checks.download = excluded.download then plugin_package_checks.size end,
         entry_count = case when plugin_package_checks.download = excluded.download then plugin_package_checks.entry_count end,
         manifest = case when plugin_package_checks.download = excluded.download then plugin_package_checks.manifest end,
         checks = case when plugin_package_checks.download = excluded.download then plugin_package_checks.checks end,
         reason = case when plugin_package_checks.download = excluded.download then plugin_package_checks.reason end,
         checked_at = case when plugin_package_checks.download = excluded.download then plugin_package_checks.checked_at end,
         due_at = case when plugin_package_checks.download = excluded.download then plugin_package_checks.due_at else now() end,
         claim = case when plugin_package_checks.download = excluded.download then plugin_package_checks.claim end,
         locked_until = case when plugin_package_checks.download = excluded.download then plugin_package_checks.locked_until end,
         attempts = case when plugin_package_checks.download = excluded.download then plugin_package_checks.attempts else 0 end
   where (plugin_package_checks.download, plugin_package_checks.expected_sha256)
         is distinct from (excluded.download, excluded.expected_sha256);
  -- Site processes waiting for work are woken when this transaction commits.
  perform pg_notify('package_checks', '');
end
$$;

create function package_check_sync_row() returns trigger
language plpgsql as $$
begin
  if tg_table_name = 'plugins' then
    perform package_check_sync(coalesce(new.id, old.id));
  else
    perform package_check_sync(coalesce(new.plugin_id, old.plugin_id));
  end if;
  return null;
end
$$;

-- Deferred to commit: a version upload writes its version row and the plugin's
-- download in either order; the row follows the state the transaction ends in.
-- Named to sort before each table's *_bump_generation: triggers of one event fire
-- in name order, and sql/009's rule is that the generation's row is the last lock
-- a transaction takes. Named *_package_check they took this row's lock after it,
-- and an author's edit deadlocked with a worker saving a result (which holds this
-- row, then bumps at its commit): 40P01, a 500.
create constraint trigger plugins_align_package_check
  after insert or update of download, sha256, status on plugins
  deferrable initially deferred
  for each row execute function package_check_sync_row();
create constraint trigger plugin_pending_updates_align_package_check
  after insert or update or delete on plugin_pending_updates
  deferrable initially deferred
  for each row execute function package_check_sync_row();
create constraint trigger plugin_versions_align_package_check
  after insert or update of download on plugin_versions
  deferrable initially deferred
  for each row execute function package_check_sync_row();

-- What owners and administrators see changes the plugin's record: the answers kept
-- per store generation must follow (a claim's lease alone changes nothing shown).
create constraint trigger plugin_package_checks_bump_generation
  after insert or delete or update of status, sha256, size, entry_count, manifest, checks, reason, checked_at on plugin_package_checks
  deferrable initially deferred
  for each row execute function bump_generation('store');

-- The notification of a download whose bytes no longer match what was reviewed.
alter table notifications drop constraint notifications_kind_check;
alter table notifications add constraint notifications_kind_check
  check (kind in ('review.approved', 'review.rejected', 'update.approved', 'update.rejected',
                  'rating.created', 'reply.created', 'report.resolved', 'package.changed'));

-- Plugins already in the store: each outside link gets its first check.
select package_check_sync(id) from plugins;
