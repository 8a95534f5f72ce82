-- The numbers a logged-in request checks what it kept against, in one snapshot:
-- the store's (sql/008_generations.sql: kept lists and details) and the
-- sessions' (sql/008_generations.sql: kept session lookups). One read shared
-- by the requests that arrive together (src/services/site/generations.ts). With the store's
-- visibility generation (sql/008): what may be served stale while PostgreSQL is away;
-- and the ratings generation (sql/008: kept ratings pages of logged-in callers).
-- params: none
-- not null: store, visibility, ratings, sessions
select s.generation::text as store, s.visibility::text as visibility, s.ratings::text as ratings,
       a.generation::text as sessions
  from store_generation s, session_generation a
