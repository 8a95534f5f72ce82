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
  -- The same as a list, for the typo-tolerant match against plugin_name_words.
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
create index plugin_search_name_words on plugin_search using gin (name_word_list);
-- The first tier (the query is the name or the id) is looked up alone first.
create index plugin_search_name on plugin_search (name_lower);
create index plugin_search_id on plugin_search (id_lower);

-- Every word that is or was in a plugin's name. A typo is looked up here by
-- trigrams (a few thousand short words, not 100,000 names), and the plugins are
-- then found by their name_word_list through an exact index. Words are never
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

-- The rows of plugin_search for some plugins (a transition table's rows).
create function store_search_rows(changed plugins[]) returns setof plugin_search
language sql stable as $$
  select p.id::text, p.status::text, p.submitter_id, p.featured, p.install_count, p.rating_score, p.updated_at,
         lower(p.id), lower(p.name), lower(p.author), store_lower_tags(p.tags), words.spaced,
         coalesce(string_to_array(nullif(btrim(words.spaced), ''), ' '), '{}'),
         store_compact(p.id) || ' ' || store_compact(p.name),
         setweight(to_tsvector('simple', p.name || ' ' || store_join_words(p.tags)), 'A')
           || setweight(to_tsvector('simple', p.author), 'B')
           || setweight(to_tsvector('simple', p.description), 'C')
           || array_to_tsvector(store_compact_tails(p.id) || store_compact_tails(p.name))
    from unnest(changed) as p
   cross join lateral (select store_name_words(p.name) as spaced) as words
$$;

create function store_sync_plugin_search() returns trigger
language plpgsql as $$
declare
  changed plugins[];
begin
  if tg_op = 'INSERT' then
    select array_agg(n) into changed from inserted n;
  else
    -- Only rows whose searched or sorted fields changed (not, say, a new icon).
    select array_agg(n) into changed
      from updated n join previous o on o.id = n.id
     where (n.status, n.submitter_id, n.featured, n.install_count, n.rating_score, n.updated_at,
            n.name, n.author, n.description, n.tags)
           is distinct from
           (o.status, o.submitter_id, o.featured, o.install_count, o.rating_score, o.updated_at,
            o.name, o.author, o.description, o.tags);
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
  insert into plugin_name_words (word)
  select distinct word
    from unnest(changed) as p, unnest(string_to_array(btrim(store_name_words(p.name)), ' ')) as word
   where word <> ''
  on conflict do nothing;
  return null;
end
$$;

create trigger plugins_sync_search_insert
  after insert on plugins referencing new table as inserted
  for each statement execute function store_sync_plugin_search();
create trigger plugins_sync_search_update
  after update on plugins referencing old table as previous new table as updated
  for each statement execute function store_sync_plugin_search();

insert into plugin_search select * from store_search_rows(array(select p from plugins p));
insert into plugin_name_words (word)
select distinct word from plugin_search, unnest(name_word_list) as word
on conflict do nothing;

-- What search read in plugins before; nothing else reads them.
drop index plugins_search_key;
drop index plugins_name_trigrams;
drop index plugins_search_words;
alter table plugins drop column search_key, drop column search_words;
