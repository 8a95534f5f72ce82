-- Search, measured again on a seeded catalogue (scripts/seed-plugins.ts): trigram
-- word similarity costs tens of microseconds per row against an id, name, author
-- and tags text, and a typo of a popular word matched a thousand rows at 10,000
-- plugins. Typos are now tolerated in names (trigrams on the lower-case name, a
-- few words each), and everything else is found by whole words and word prefixes
-- through full-text search: tags and the name's words weigh most (A), then the
-- author (B), then the description (C).
drop index plugins_search_text;
drop index plugins_description_words;
alter table plugins drop column search_text, drop column description_words;
alter table plugins
  add column search_words tsvector generated always as (
    setweight(to_tsvector('simple', name || ' ' || store_join_words(tags)), 'A')
    || setweight(to_tsvector('simple', author), 'B')
    || setweight(to_tsvector('simple', description), 'C')) stored;
create index plugins_name_trigrams on plugins using gin (lower(name) gin_trgm_ops);
create index plugins_search_words on plugins using gin (search_words);
