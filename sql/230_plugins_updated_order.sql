-- The lists in updated order that see every status (an administrator's ?limit=100
-- and ?scope=admin without a status, the review page's first read) had no index in
-- their order: the status indexes (sql/002) serve one status at a time, so each such
-- page read all plugins and sorted them (bench-store at 10,000 plugins: a sequential
-- scan and a top-N sort, 53 ms on a busy machine, on every first answer after a
-- change). With this one the page walks the index in order and stops at offset +
-- limit (an index-only scan of 100 rows). The installs and rating orders were
-- measured without a match: at offset 5,000 PostgreSQL then preferred a scan.
create index plugins_updated on plugins (updated_at desc, id);
