-- The tags in lower case, stored: the tag filter and related plugins read them for
-- every candidate row, and computing them there (store_lower_tags, an SQL
-- function over unnest) cost more than the rest of those queries at 100,000
-- plugins. Computed once per write instead.
alter table plugins add column tags_lower text[] generated always as (store_lower_tags(tags)) stored;
drop index plugins_tags;
create index plugins_tags_lower on plugins using gin (tags_lower);
