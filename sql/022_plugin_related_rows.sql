-- store_related_plugins (021) answers at most 6 rows for the store (MAX_RELATED), but
-- a set-returning function is estimated at 1,000 by default, so the planner joined
-- its answer to plugin_summaries by a hash join over a sequential scan of plugins
-- (seen in scripts/bench-store.ts at 10,000 plugins). With the estimate it has,
-- the chosen rows are looked up by primary key.
alter function store_related_plugins(text, text[], bigint, integer) rows 6;
