-- Which of the files ($1 names, $2 hashes, one pair per entry) have the bytes of a
-- file of a package removed for malware (sql/007 blocked_files), in their order.
-- params: $1 names, $2 hashes
select f.name
  from unnest($1::text[], $2::text[]) with ordinality as f (name, sha256, n)
 where exists (select 1 from blocked_files b where b.sha256 = f.sha256)
 order by f.n
