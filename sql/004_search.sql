-- Search reads a narrow copy of what it looks at (sql/queries/store/search.sql).
-- Measured at 100,000 plugins: a common word ("map", "tools") matches a fifth of
-- the catalogue, and the total counts every match, so the search visits that many
-- rows. In plugins a row is kilobytes (long description, screenshots), so those
-- visits touched nearly every page of the table (30-50 ms before any ranking);
-- this table holds a row in a few hundred bytes. It is kept by triggers on plugins
-- in the statement that changes them (one statement-level trigger per event, so a
-- bulk COPY fills it in one insert), and a deleted plugin takes its row along.
--
-- It also precomputes what the ranking computed per row and per query: the name's
-- words (the regexp_replace of every candidate) and their list.

-- Search keys (immutable, like lower(), so they could feed generated columns and
-- expression indexes).
create function store_join_words(words text[]) returns text
language sql immutable parallel safe as $$
  select coalesce(string_agg(word, ' ' order by ordinality), '') from unnest(words) with ordinality as word
$$;
-- "Mini-Map 2" -> "minimap2": how people type a name without its spaces and dashes.
create function store_compact(value text) returns text
language sql immutable parallel safe as $$
  select regexp_replace(lower(value), '[^[:alnum:]]+', '', 'g')
$$;

-- The `similar-name` check of a version's package
-- (src/services/site/store/versions/manifest/): the approved plugins whose compact
-- name or id is nearest a new one's, by trigram distance, walked in order by these
-- indexes rather than by reading every plugin.
create index plugins_approved_compact_name_trgm on plugins using gist (store_compact(name) gist_trgm_ops) where status = 'approved';
create index plugins_approved_compact_id_trgm on plugins using gist (store_compact(id) gist_trgm_ops) where status = 'approved';

create table plugin_search (
  id text primary key references plugins (id) on delete cascade,
  status text not null,
  submitter_id bigint not null,
  featured boolean not null,
  install_count bigint not null,
  rating_score double precision not null,
  updated_at timestamptz not null,
  id_lower text not null,
  name_lower text not null,
  author_lower text not null,
  tags_lower text[] not null,
  -- ' ' then the name's runs of letters and digits, one space between: ' mini map 2'.
  name_words text not null,
  -- The same as a list (the '~word' lexemes of search_words are made from it).
  name_word_list text[] not null,
  -- '<compact id> <compact name>', for the rank: "mini map" is "minimap" there.
  search_key text not null,
  -- What a word or its beginning is looked up in: tags and the name's words (A),
  -- author (B), description (C), and, without weight, the id's and the name's
  -- compact tails from each word on ("minimapplus", "mapplus", "plus" for
  -- "Mini Map Plus"), so "minimap", "mini map" and "mapplus" find it with an exact
  -- index and no substring test per row.
  search_words tsvector not null
);
create index plugin_search_words on plugin_search using gin (search_words);
-- The first tier (the query is the name or the id) is looked up alone first.
create index plugin_search_name on plugin_search (name_lower);
create index plugin_search_id on plugin_search (id_lower);

-- Every word that is or was in a plugin's name. A typo is looked up here by
-- trigrams (a few thousand short words, not 100,000 names), and the plugins are
-- then found by those words' '~word' lexemes in search_words. Words are never
-- removed: one no plugin has any more matches nothing, and removing it would make
-- every rename wait on a count shared by all plugins with that word.
create table plugin_name_words (
  word text primary key
);
create index plugin_name_words_trigrams on plugin_name_words using gin (word gin_trgm_ops);

create function store_name_words(name text) returns text
language sql immutable parallel safe as $$
  select ' ' || regexp_replace(lower(name), '[^[:alnum:]]+', ' ', 'g')
$$;

-- For the rank: how close a name's best word is to the longest query word, 0 to
-- 300, given that word and the name words at least 0.9, 0.8 ... 0.3 close to it
-- (word similarity, computed once per query in search.sql); 300 for the word itself.
create function store_search_closeness(words text[], word text, near text[], close9 text[], close8 text[],
                                       close7 text[], close6 text[], close5 text[], close4 text[], close3 text[])
returns integer language sql immutable parallel safe as $$
  select 30 * (case
                 when not (words && near) then 0
                 when words && close9 then 9
                 when words && close8 then 8
                 when words && close7 then 7
                 when words && close6 then 6
                 when words && close5 then 5
                 when words && close4 then 4
                 when words && close3 then 3
                 else 0
               end
               + case when words @> array[word] then 1 else 0 end)
$$;

-- "Mini-Map Plus" -> {minimapplus, mapplus, plus}.
create function store_compact_tails(value text) returns text[]
language sql immutable parallel safe as $$
  select coalesce(array_agg(array_to_string(words[i:], '') order by i), '{}')
    from (select string_to_array(btrim(store_name_words(value)), ' ') as words) as split,
         generate_subscripts(split.words, 1) as i
$$;

-- The rows of plugin_search for some plugins (a transition table's rows). The
-- name's words also go into search_words as '~word' (a lexeme no text can produce:
-- the parser drops '~'), without weight, so that a typo's close name words join the
-- rest of the match in one full-text query ('mapp':* | '~map') and one index scan,
-- still matching names only.
create function store_search_rows(changed plugins[]) returns setof plugin_search
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

-- Keeps plugin_search in step with plugins, in the statement that changes them (one
-- statement-level trigger per event, so a bulk COPY fills it in one insert). An
-- install click, a rating or a review changes only what lists filter and sort on
-- (status, counts, dates): those columns are copied (about 30 microseconds a row,
-- against 250-350 for building the row again). Rows whose searched text (name,
-- author, description, tags) changed are built again; only inserts and renames add
-- name words, in word order, so two transactions adding the same words cannot
-- deadlock.
create function store_sync_plugin_search() returns trigger
language plpgsql as $$
declare
  changed plugins[];
  named plugins[];
begin
  if tg_op = 'INSERT' then
    select array_agg(n) into changed from inserted n;
    named := changed;
  else
    update plugin_search s
       set status = n.status, submitter_id = n.submitter_id, featured = n.featured,
           install_count = n.install_count, rating_score = n.rating_score, updated_at = n.updated_at
      from updated n join previous o on o.id = n.id
     where s.id = n.id
       and (n.name, n.author, n.description, n.tags) is not distinct from (o.name, o.author, o.description, o.tags)
       and (n.status, n.submitter_id, n.featured, n.install_count, n.rating_score, n.updated_at)
           is distinct from
           (o.status, o.submitter_id, o.featured, o.install_count, o.rating_score, o.updated_at);
    select array_agg(n), array_agg(n) filter (where n.name is distinct from o.name) into changed, named
      from updated n join previous o on o.id = n.id
     where (n.name, n.author, n.description, n.tags) is distinct from (o.name, o.author, o.description, o.tags);
  end if;
  if changed is null then
    return null;
  end if;
  insert into plugin_search
  select * from store_search_rows(changed)
  on conflict (id) do update set
    status = excluded.status, submitter_id = excluded.submitter_id, featured = excluded.featured,
    install_count = excluded.install_count, rating_score = excluded.rating_score,
    updated_at = excluded.updated_at, id_lower = excluded.id_lower, name_lower = excluded.name_lower,
    author_lower = excluded.author_lower, tags_lower = excluded.tags_lower, name_words = excluded.name_words,
    name_word_list = excluded.name_word_list, search_key = excluded.search_key,
    search_words = excluded.search_words;
  -- New name words in word order (two transactions adding the same words cannot wait
  -- on each other), and only for inserts and renames.
  if named is not null then
    insert into plugin_name_words (word)
    select distinct word
      from unnest(named) as p, unnest(string_to_array(btrim(store_name_words(p.name)), ' ')) as word
     where word <> ''
     order by word
    on conflict do nothing;
  end if;
  return null;
end
$$;

create trigger plugins_sync_search_insert
  after insert on plugins referencing new table as inserted
  for each statement execute function store_sync_plugin_search();
create trigger plugins_sync_search_update
  after update on plugins referencing old table as previous new table as updated
  for each statement execute function store_sync_plugin_search();
