-- The store's generation (sql/050_store_generation.sql): visitors' list answers built
-- under it are still exact.
select generation::text as generation from store_generation
