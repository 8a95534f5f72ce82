-- Plugin versions (issue 19): every version of a plugin whose ZIP the image host
-- keeps, with the file list it was inspected with, kept for good.
--
-- A version is `pending` when uploaded, `approved` when a review made it live (or
-- left it approved: the plugin's version, download and sha256 are always those of
-- its live version), `rejected` when a review refused it or approved something
-- else, `withdrawn` by its owner or an administrator, `removed` by an
-- administrator for malware (its file then answers 410 on the image host). The
-- primary key (plugin, version) is never freed, so a version number is never
-- reused, even withdrawn or removed. src/site/versions/ writes it.

-- A hosted package's download is the image host's public URL of /pkg/<sha256>/<name>.zip,
-- which is http where the image host is served over http (a test, a LAN). The rule
-- stays https for everything else: the API refuses http links (validation.ts), and
-- only this one shape is let through beside them.
alter domain plugin_download drop constraint plugin_download_check;
alter domain plugin_download add constraint plugin_download_check
  check (char_length(value) <= 2048
         and (value ~ '^https://[^/?#@[:space:]]+/[^?#[:space:]]*\.[zZ][iI][pP]([?#][^[:space:]]*)?$'
              or value ~ '^http://[^/?#@[:space:]]+(/[A-Za-z0-9._~-]+)*/pkg/[0-9a-f]{64}/[A-Za-z0-9][A-Za-z0-9._-]{0,99}\.zip$'));

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

-- Versions are in the answers kept per store generation (sql/050): every change moves it.
create constraint trigger plugin_versions_bump_generation
  after insert or update or delete on plugin_versions
  deferrable initially deferred
  for each row execute function store_bump_generation();

create trigger plugin_versions_truncate_bumps_generation
  after truncate on plugin_versions
  for each statement execute function store_bump_generation();
