-- Bytes an administrator removed for malware (DELETE of a version, no other live
-- version on them): no version with them is inserted or goes live from then on.
-- The image host keeps its own mark and answers 410 for the file, but the site
-- cannot ask it and act in one step: an approval, or an upload of the same bytes to
-- another plugin, that came between the site's check and the image host's deletion
-- made a version live whose download answered 410. PostgreSQL decides instead: the
-- removal, an approval and an insert each take a lock on the bytes' hash
-- (versions/lock-bytes*.sql, removal exclusive, the others shared) before they read
-- this table or the live versions, so one of them always sees what the other did.
create table removed_packages (
  sha256 plugin_sha256 primary key,
  removed_at timestamptz not null default now()
);
