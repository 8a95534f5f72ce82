-- Search, measured at 100,000 plugins: trigram word similarity against the whole
-- text (description included) cost most of a search, since its cost grows with
-- the text's length. Typos are tolerated where people type names (id, name,
-- author, tags); descriptions are matched by words and word prefixes through
-- full-text search instead, which an index answers without reading each row.
drop index plugins_search_text;
alter table plugins drop column search_text;
alter table plugins
  add column search_text text generated always as (lower(id || ' ' || name || ' ' || author || ' ' || store_join_words(tags))) stored,
  add column description_words tsvector generated always as (to_tsvector('simple', description)) stored;
create index plugins_search_text on plugins using gin (search_text gin_trgm_ops);
create index plugins_description_words on plugins using gin (description_words);
