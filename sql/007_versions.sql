-- Plugin versions: every version of a plugin whose ZIP the image host keeps, with
-- the file list it was inspected with, kept for good; the version numbers uploads
-- hold until their insert; and the bytes an administrator removed for malware.
-- src/services/site/store/versions/ writes them. A hosted package's download is let through by
-- the plugin_download domain (sql/002).
--
-- A version is `pending` when uploaded, `approved` when a review made it live (or
-- left it approved: the plugin's version, download and sha256 are always those of
-- its live version), `rejected` when a review refused it or approved something
-- else, `withdrawn` by its owner or an administrator, `removed` by an
-- administrator for malware (its file then answers 410 on the image host). The
-- primary key (plugin, version) is never freed, so a version number is never
-- reused, even withdrawn or removed.

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
  primary key (plugin_id, version)
);

-- Lists, newest first (clock_timestamp: two versions of one transaction still order).
create index plugin_versions_newest on plugin_versions (plugin_id, created_at desc, version);
-- Removal: is another live version on the same bytes?
create index plugin_versions_live_sha256 on plugin_versions (sha256) where status = 'approved';

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
