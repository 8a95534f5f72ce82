-- What each hosted version's package says about itself (issue 31): the launcher
-- installs and runs what the package's plugin.json says, not what the store's
-- fields say, so the site reads the manifest the image host found, keeps it with
-- the version, and checks the package before review (src/services/site/store/versions/manifest/).
--
--   manifest         the manifest as the launcher reads it, normalised:
--                    {id, name, version, author, description, entry, permissions,
--                    min_launcher_version}; null only for versions uploaded before
--                    this change.
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
alter table plugin_versions
  add column manifest jsonb check (jsonb_typeof(manifest) = 'object'),
  add column manifest_source jsonb check (jsonb_typeof(manifest_source) = 'object'),
  add column findings jsonb not null default '[]' check (jsonb_typeof(findings) = 'array'),
  add column permissions jsonb not null default '[]' check (jsonb_typeof(permissions) = 'array'),
  add column checks jsonb not null default '[]' check (jsonb_typeof(checks) = 'array'),
  add column entry_kind text check (entry_kind ~ '^(none|python(\+process)?(\+qml)?|process(\+qml)?|qml)$');

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

-- The `similar-name` check: the approved plugins whose compact name or id (as search
-- compares them, store_compact of sql/004) is nearest a new one's, by trigram
-- distance, walked in order by these indexes rather than by reading every plugin.
create index plugins_approved_compact_name_trgm on plugins using gist (store_compact(name) gist_trgm_ops) where status = 'approved';
create index plugins_approved_compact_id_trgm on plugins using gist (store_compact(id) gist_trgm_ops) where status = 'approved';
