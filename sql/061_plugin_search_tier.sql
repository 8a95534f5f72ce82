-- The relevance tier of a plugin_search row for a query (sql/queries/store/search.sql),
-- as a function so that the search can compute it where it needs it: over every
-- match to find the page's cut when ranking by relevance, but only over the rows
-- that can reach the page under an explicit sort (where it merely breaks ties).
-- An SQL function of one expression: PostgreSQL inlines it, so calling it costs
-- nothing more than the expression.
--   query: the query in lower case; phrase: its words joined by one space;
--   compact: the words without spaces.
-- The first six arguments are plugin_search's columns of those names.
create function store_search_tier(id_lower text, name_lower text, search_key text, tags_lower text[],
                                  author_lower text, name_words text, query text, phrase text, compact text)
returns integer language sql immutable parallel safe as $$
  select case
           when id_lower = query or name_lower = query or name_lower = phrase then 10000
           -- search_key is "<compact id> <compact name>", and compact text has no spaces.
           when starts_with(search_key, compact || ' ') or search_key like '% ' || compact then 9000
           when starts_with(name_lower, phrase) or starts_with(id_lower, query) then 8000
           when starts_with(search_key, compact) or position(' ' || compact in search_key) > 0 then 7000
           when tags_lower @> array[phrase] then 6000
           when author_lower = phrase then 5000
           when position(' ' || phrase in name_words) > 0 then 4000
           else 0
         end
$$;

-- The name's words also go into search_words as '~word' (a lexeme no text can
-- produce: the parser drops '~'), without weight, so that a typo's close name
-- words join the rest of the match in one full-text query ('mapp':* | '~map') and
-- one index scan, still matching names only. The word-list index is then unused.
create or replace function store_search_rows(changed plugins[]) returns setof plugin_search
language sql stable as $$
  select p.id::text, p.status::text, p.submitter_id, p.featured, p.install_count, p.rating_score, p.updated_at,
         lower(p.id), lower(p.name), lower(p.author), store_lower_tags(p.tags), words.spaced, words.list,
         store_compact(p.id) || ' ' || store_compact(p.name),
         setweight(to_tsvector('simple', p.name || ' ' || store_join_words(p.tags)), 'A')
           || setweight(to_tsvector('simple', p.author), 'B')
           || setweight(to_tsvector('simple', p.description), 'C')
           || array_to_tsvector(store_compact_tails(p.id) || store_compact_tails(p.name)
                                || array(select '~' || word from unnest(words.list) as word))
    from unnest(changed) as p
   cross join lateral (select store_name_words(p.name) as spaced) as spaced
   cross join lateral (select spaced.spaced,
                              coalesce(string_to_array(nullif(btrim(spaced.spaced), ''), ' '), '{}') as list) as words
$$;
drop index plugin_search_name_words;
update plugin_search s
   set search_words = r.search_words
  from store_search_rows(array(select p from plugins p)) as r
 where r.id = s.id;
