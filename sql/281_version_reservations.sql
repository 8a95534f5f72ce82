-- A version number held by an upload from its last check until its insert
-- (src/site/versions/upload-route.ts). Meanwhile the image host finishes the file
-- (its fsync, or its copy to a bucket) without a connection or a lock held for it,
-- and an upload of the same number is refused before its own file is kept: before
-- this table, uploads racing for one number all passed the check, all their files
-- were stored, and all inserts but one were refused, leaving the others' files
-- unreferenced. A hold ends with the insert (in its transaction), with the upload's
-- failure, or at expires_at, should the process that took it end in between.
create table version_reservations (
  plugin_id text not null references plugins (id) on delete cascade,
  version plugin_version not null,
  expires_at timestamptz not null,
  primary key (plugin_id, version)
);
