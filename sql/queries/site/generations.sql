-- The two numbers a logged-in request checks what it kept against, in one snapshot:
-- the store's (sql/007_store_generation.sql: kept lists and details) and the
-- sessions' (sql/231_session_generation.sql: kept session lookups). One read shared
-- by the requests that arrive together (src/site/generations.ts). With the store's
-- visibility generation (sql/240): what may be served stale while PostgreSQL is away.
select s.generation::text as store, s.visibility::text as visibility, a.generation::text as sessions
  from store_generation s, session_generation a
