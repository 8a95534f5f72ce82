-- Plugin versions: every version of a plugin whose ZIP the image host keeps, with
-- the file list it was inspected with and what its manifest says, kept for good;
-- the version numbers uploads hold until their insert; the bytes an administrator
-- removed for malware and the files they held; the checks of outside download
-- links; and the views lists and details read, which carry what the live version's
-- package says. src/services/site/store/versions/ writes them. A hosted package's
-- download is let through by the plugin_download domain (sql/002).
--
-- A version is `pending` when uploaded, `approved` when a review made it live (or
-- left it approved: the plugin's version, download and sha256 are always those of
-- its live version), `rejected` when a review refused it or approved something
-- else, `withdrawn` by its owner or an administrator, `removed` by an
-- administrator for malware (its file then answers 410 on the image host). The
-- primary key (plugin, version) is never freed, so a version number is never
-- reused, even withdrawn or removed.
--
-- The launcher installs and runs what a package's plugin.json says, not what the
-- store's fields say, so each version keeps the manifest the image host found
-- (src/services/site/store/versions/manifest/):
--
--   manifest         the manifest as the launcher reads it, normalised:
--                    {id, name, version, author, description, entry, permissions,
--                    min_launcher_version}; null only for versions uploaded before
--                    manifests were read.
--   manifest_source  {path, json}: the file as the image host found it, so the
--                    checks can be computed again under new rules (npm run recheck).
--   findings         what the image host found in the package's entries
--                    ([{code: 'secret', file, kind} | {code: 'native-executable', file, format}]).
--   permissions      [{id, risk: 'safe' | 'high'}], as the launcher grants them.
--   checks           [{code, level: 'warn' | 'block', message, file?}], computed at
--                    upload, again when a removal blocks one of its files, and by
--                    npm run recheck.
--   entry_kind       what the launcher runs of it: 'python' (inside the launcher's
--                    own process), 'process' (a program), 'qml' (a page), joined by
--                    '+' when it runs several, 'none' when only declarations.

create domain plugin_changelog as text
  check (char_length(value) <= 10000);
create domain plugin_version_status as text
  check (value in ('pending', 'approved', 'rejected', 'withdrawn', 'removed'));

create table plugin_versions (
  plugin_id text not null references plugins (id) on delete cascade,
  version plugin_version not null,
  changelog plugin_changelog not null default '',
  sha256 plugin_sha256 not null,
  size bigint not null check (size > 0),
  download plugin_download not null,
  entry_count integer not null check (entry_count > 0),
  -- The first 1,000 entries, [{name, size, crc32}], as the image host listed them.
  files jsonb not null check (jsonb_typeof(files) = 'array' and jsonb_array_length(files) <= 1000),
  status plugin_version_status not null default 'pending',
  created_at timestamptz not null default clock_timestamp(),
  reviewed_at timestamptz,
  manifest jsonb check (jsonb_typeof(manifest) = 'object'),
  manifest_source jsonb check (jsonb_typeof(manifest_source) = 'object'),
  findings jsonb not null default '[]' check (jsonb_typeof(findings) = 'array'),
  permissions jsonb not null default '[]' check (jsonb_typeof(permissions) = 'array'),
  checks jsonb not null default '[]' check (jsonb_typeof(checks) = 'array'),
  entry_kind text check (entry_kind ~ '^(none|python(\+process)?(\+qml)?|process(\+qml)?|qml)$'),
  primary key (plugin_id, version)
);

-- Lists, newest first (clock_timestamp: two versions of one transaction still order).
create index plugin_versions_newest on plugin_versions (plugin_id, created_at desc, version);
-- Removal: is another live version on the same bytes?
create index plugin_versions_live_sha256 on plugin_versions (sha256) where status = 'approved';

-- Every file entry of a version with the SHA-256 of its bytes (the image host's
-- `files`, not capped like `files`): looked up by hash when a removal blocks a
-- package's files. Keyed by position, not name: a name may be longer than a btree
-- key may be.
create table plugin_version_files (
  plugin_id text not null,
  version plugin_version not null,
  position integer not null check (position >= 0),
  name text not null,
  sha256 plugin_sha256 not null,
  primary key (plugin_id, version, position),
  foreign key (plugin_id, version) references plugin_versions (plugin_id, version) on delete cascade
);
create index plugin_version_files_sha256 on plugin_version_files (sha256);

-- A version number held by an upload from its last check until its insert
-- (src/services/site/store/versions/upload-route.ts). Meanwhile the image host finishes the file
-- (its fsync, or its copy to a bucket) without a connection or a lock held for it,
-- and an upload of the same number is refused before its own file is kept: without
-- this table, uploads racing for one number would all pass the check, all their
-- files would be stored, and all inserts but one refused, leaving the others' files
-- unreferenced. A hold ends with the insert (in its transaction), with the upload's
-- failure, or at expires_at, should the process that took it end in between.
create table version_reservations (
  plugin_id text not null references plugins (id) on delete cascade,
  version plugin_version not null,
  expires_at timestamptz not null,
  primary key (plugin_id, version)
);

-- Bytes an administrator removed for malware (DELETE of a version, no other live
-- version on them): no version with them is inserted or goes live from then on.
-- The image host keeps its own mark and answers 410 for the file, but the site
-- cannot ask it and act in one step: an approval, or an upload of the same bytes to
-- another plugin, that came between the site's check and the image host's deletion
-- would make a version live whose download answers 410. PostgreSQL decides instead:
-- the removal, an approval and an insert each take a lock on the bytes' hash
-- (versions/lock-bytes*.sql, removal exclusive, the others shared) before they read
-- this table or the live versions, so one of them always sees what the other did.
create table removed_packages (
  sha256 plugin_sha256 primary key,
  removed_at timestamptz not null default now()
);

-- Files of packages an administrator removed for malware (DELETE of a version): a
-- version holding one of them is blocked (the `blocked-file` check), at upload or,
-- when pending, at the removal. Where the hash was first seen, for the message.
create table blocked_files (
  sha256 plugin_sha256 primary key,
  name text not null,
  plugin_id text not null,
  version plugin_version not null,
  blocked_at timestamptz not null default now()
);

-- A version as the Bloret launcher compares versions (modules/plugin_store.py
-- _version_key), so that the update check offers a launcher only a version it can
-- run (its manifest's min_launcher_version, sql/queries/store/versions/check-updates.sql):
-- trimmed, lower case, leading v's dropped, split at . + _ -; each
-- part is its first run of digits, or -1 when it has none; missing parts are 0;
-- the first four parts count. So 25.3 = 25.3.0 = v25.3.0.0 < 25.3.1, and
-- 25.4.0-beta.2 (25, 4, 0, -1) < 25.4.0. Arrays of four compare part by part. Only
-- ASCII digits are digits here (Python's \d takes other scripts' digits too).
create function launcher_version_key(value text) returns numeric[]
  language sql immutable strict parallel safe
as $$
  select (array(
    select coalesce(substring(part from '[0-9]+')::numeric, -1)
      from unnest(regexp_split_to_array(
             ltrim(lower(regexp_replace(coalesce(nullif(value, ''), '0'), '^\s+|\s+$', '', 'g')), 'v'),
             '[.+_-]')) with ordinality as parts (part, n)
     order by n) || array[0, 0, 0, 0]::numeric[])[1:4]
$$;

-- Package checks of outside download links: the store fetches the file
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
-- Named to sort before each table's *_bump_generation (sql/009): triggers of one
-- event fire in name order, and the generation's row must be the last lock a
-- transaction takes. Sorting after it, they would take this row's lock after the
-- generation's, and an author's edit would deadlock with a worker saving a result
-- (which holds this row, then bumps at its commit): 40P01, a 500.
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

-- A plugin as the API shows it: the live record with its submitter's name, its
-- pending update, and what its live package says: `size` (bytes of the live
-- package, null for an outside link), `min_launcher` (the live version's manifest
-- min_launcher_version, or null), the names the Bloret launcher's store page reads
-- (modules/plugin_store.py normalize_listing), and what the package runs (the plugin
-- page says "runs inside the launcher", "runs a program", "a page in the
-- launcher"; null for an outside link or a version uploaded before manifests were
-- read). The live package is the version the record carries: same plugin, number
-- and file (versions/package-review.ts finds it the same way). Every join is a
-- left join on a unique key, so a query that reads none of their columns does not
-- pay for them (a count); a list reads the version by one probe per listed plugin.
create view plugin_records as
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
       greatest(p.revision, pending.revision)::text as revision,
       live.size as live_size, live.manifest ->> 'min_launcher_version' as live_min_launcher,
       live.entry_kind as live_entry_kind
  from plugins p
  left join users submitter on submitter.id = p.submitter_id
  left join plugin_pending_updates pending on pending.plugin_id = p.id
  left join plugin_versions live on live.plugin_id = p.id and live.version = p.version and live.download = p.download;

-- A plugin as lists show it: plugin_records without the long description, which
-- can be 20,000 characters and is for the detail page, nor what the package runs,
-- which the plugin page alone says.
create view plugin_summaries as
select id, submitter_id, submitter, name, version, author, description, download, sha256, url, icon, tags,
       permissions, screenshots, status, featured, install_count, rating_count, rating_sum, rating_score,
       review_action, review_reason, reviewed_at, created_at, updated_at,
       pending_changed, pending_name, pending_version, pending_author, pending_description,
       pending_long_description, pending_download, pending_sha256, pending_url, pending_icon, pending_tags,
       pending_permissions, pending_screenshots, pending_submitted_at, revision, live_size, live_min_launcher
  from plugin_records;
