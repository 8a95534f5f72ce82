-- The store's generation (sql/008_generations.sql), under which the answers
-- kept by a site process are still exact, and whether the viewer $1 (users.id, null
-- for visitors and administrators, who never get the visitors' answers) has
-- submitted any plugin: a user who has not sees exactly what a visitor sees. One
-- snapshot, so the two agree.
--
-- Not `exists (...)`: run prepared, PostgreSQL settles on a generic plan, and
-- where one author owns most plugins that plan expects a match in the first rows
-- and scans `plugins` in order, which for a user with no plugin reads every row on
-- every request (10,000 rows: 10 ms of the database per request on a busy machine; bench-store's
-- administrator rows). A scalar subquery keeps its ORDER BY, which only the
-- submitter index (plugins_submitter_updated) gives without sorting every row.
-- params: $1 viewer_id
-- not null: generation, visibility, viewer_submits
-- With the visibility generation (sql/008), which tags the answers built after it.
select g.generation::text as generation, g.visibility::text as visibility,
       (select true from plugins p
         where p.submitter_id = $1::bigint
         order by p.updated_at desc, p.id
         limit 1) is not null as viewer_submits
  from store_generation g
