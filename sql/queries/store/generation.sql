-- The store's generation (sql/007_store_generation.sql), under which the visitors'
-- answers kept by a site process are still exact, and whether the viewer $1
-- (users.id, null for visitors) has submitted any plugin: a user who has not sees
-- exactly what a visitor sees. One snapshot, so the two agree.
select g.generation::text as generation,
       ($1::bigint is not null and exists (select 1 from plugins p where p.submitter_id = $1::bigint)) as viewer_submits
  from store_generation g
