-- Ranked, typo-tolerant search over id, name, author, tags and description, with the
-- list filters, a page and the total in one round trip.
-- params: $1 viewer_id, $2 sees_all, $3 status, $4 submitter_id, $5 tag, $6 featured_only, $7 limit, $8 offset
-- params: $9 query_lower, $10 phrase, $11 compact, $12 other_words, $13 longest_word, $14 sort
-- The filters are the lists' (list-updated.sql). query_lower: the query in lower
-- case; phrase: its words joined by one space; compact: the words without spaces;
-- other_words: the words but the longest (text[]); sort: 'relevance', 'updated',
-- 'rating', 'installs' or 'oldest' (updated_at ascending).
--
-- It reads plugin_search, the narrow copy of what search looks at (sql/004_search.sql).
-- A plugin matches when the compact query ("mini map" -> "minimap") begins one of
-- the compact tails of its id or name ("minimap", "mapplus"), or when every word is
-- found: as a word or word prefix of its name, tags, author or description, or as
-- a name word close to it by trigrams (a typo: "minimp", "minmap", "waypionts").
-- Typos are looked up once per query in plugin_name_words (trigram similarity at
-- least pg_trgm.similarity_threshold, 0.3, or word similarity at least
-- pg_trgm.word_similarity_threshold, 0.6), so no trigram is computed per plugin:
-- the whole match is one full-text query on search_words, one index scan.
--
-- Rank: a tier (exact id or name, then compact equality, then prefixes, then an
-- exact tag, then the author, then a name word starting with the query;
-- store_search_tier, sql/004), then within it how close the name's closest word is
-- to the longest query word (word similarity in tenths, store_search_closeness,
-- sql/004) plus the full-text rank (tags and name words, then author, then
-- description), then installs, then id.
--
-- Only what can change the page is computed: when the plugins whose id or name is
-- the query fill it, only they are ranked and the rest is only counted; otherwise
-- every match gets its cheap key (tier and closeness, or the column a sort names),
-- the list is cut at the (offset + limit)-th key, and only the rows at or above
-- the cut (less the 200 the full-text rank can add) are read again and scored.
-- The total is always the count of every match.
with longest as materialized (
  select coalesce(array_agg(v.word), '{}') as near,
         -- Name words at least this close to the longest query word, for the rank.
         coalesce(array_agg(v.word) filter (where v.closeness >= 0.9), '{}') as close9,
         coalesce(array_agg(v.word) filter (where v.closeness >= 0.8), '{}') as close8,
         coalesce(array_agg(v.word) filter (where v.closeness >= 0.7), '{}') as close7,
         coalesce(array_agg(v.word) filter (where v.closeness >= 0.6), '{}') as close6,
         coalesce(array_agg(v.word) filter (where v.closeness >= 0.5), '{}') as close5,
         coalesce(array_agg(v.word) filter (where v.closeness >= 0.4), '{}') as close4,
         coalesce(array_agg(v.word) filter (where v.closeness >= 0.3), '{}') as close3
    from (select w.word, word_similarity($13::text, w.word) as closeness
            from plugin_name_words w
           where w.word % $13::text or $13::text <% w.word) as v
),
-- The whole match as one full-text query, answered by one index scan: the compact
-- query beginning a word, or every word found, each as a word prefix anywhere or
-- as one of the name words close to it ('~word' lexemes, names only, sql/004).
-- "mini mapp": 'minimapp':* | (('mini':* | '~mini' | '~minimap') & ('mapp':* | '~map' | '~maps')).
-- Built as tsquery text, not parsed (the parser would drop '~'); the words are
-- runs of letters and digits, so quoting them is enough.
terms as materialized (
  select ('''' || $11::text || ''':* | (' || string_agg(t.term, ' & ') || ')')::tsquery as found,
         -- Any query word as a whole word: without one, the full-text rank is 0.
         string_agg('''' || t.word || '''', ' | ')::tsquery as any_word
    from (select '(''' || w.word || ''':*'
                 || coalesce((select string_agg(' | ''~' || v.word || '''', '')
                                from plugin_name_words v
                               where v.word % w.word or w.word <% v.word), '')
                 || ')' as term,
                 w.word
            from unnest($12::text[] || $13::text) as w (word)) as t
),
-- Every plugin the list filters let through.
listed as not materialized (
  select s.ctid as row_id, s.*
    from plugin_search s
   where
       -- Visibility (src/services/site/store/visibility.ts): approved, own, or everything for administrators.
       (s.status = 'approved' or s.submitter_id = $1::bigint or $2::boolean)
   and ($3::text is null or s.status = $3::text)
   and ($4::bigint is null or s.submitter_id = $4::bigint)
   and ($5::text is null or s.tags_lower @> array[$5::text])
   and (not $6::boolean or s.featured)
),
-- Every one of those the query finds.
matches as not materialized (
  select s.*
    from listed s
   where s.search_words @@ (select found from terms)
),
-- The first tier, looked up by its own indexes: the query is the plugin's id or
-- name. When these fill the page (a common name: "map", "chat"), nothing else is
-- ranked and the total is a plain count.
-- (Such a plugin always matches: its compact name or id is the compact query.)
exact as materialized (
  select e.row_id, e.id, e.install_count, e.rating_score, e.updated_at from listed e
   where $14 = 'relevance' and (e.name_lower = $10 or e.name_lower = $9 or e.id_lower = $9)
),
exact_fills_page as (
  select $14 = 'relevance' and count(*) >= $7::integer + $8::integer as yes from exact
),
-- Otherwise every match gets the key of its order: under an explicit sort that
-- column alone; by relevance its tier and name closeness (cheap), and whether a
-- full-text rank is possible at all (one of the words is in it as a whole word:
-- a typo's matches have none, and their key is their score).
candidates as materialized (
  select m.row_id, m.id, m.install_count, m.rating_score, m.updated_at,
         case $14
           when 'installs' then m.install_count::double precision
           when 'rating' then m.rating_score
           -- Rounding to a double keeps the order (never swaps two times), which is all the cut needs.
           when 'updated' then extract(epoch from m.updated_at)::double precision
           when 'oldest' then -extract(epoch from m.updated_at)::double precision
           else store_search_tier(m.id_lower, m.name_lower, m.search_key, m.tags_lower, m.author_lower,
                                  m.name_words, $9, $10, $11)
                + store_search_closeness(m.name_word_list, $13::text, l.near, l.close9, l.close8, l.close7,
                                         l.close6, l.close5, l.close4, l.close3)
         end as key,
         $14 <> 'relevance' or m.search_words @@ (select any_word from terms) as rankable
    from matches m, longest l
),
-- The key of the last row the page can show.
cut as (
  select c.key from candidates c order by c.key desc offset $7::integer + $8::integer - 1 limit 1
),
-- The rows that can reach the page: at or above the cut, or (by relevance) less
-- than the 200 the full-text rank can add below it.
ranked as (
  select e.row_id, e.id, e.install_count, e.rating_score, e.updated_at, 0 as key, true as rankable
    from exact e
   where (select yes from exact_fills_page)
  union all
  select c.row_id, c.id, c.install_count, c.rating_score, c.updated_at, c.key, c.rankable
    from candidates c
   where not (select yes from exact_fills_page)
     and c.key + case when $14 = 'relevance' and c.rankable then 200 else 0 end
         >= coalesce((select key from cut), '-infinity')
),
-- Their full score, the row read again by its address where a rank is possible.
scored as (
  select r.id, r.install_count, r.rating_score, r.updated_at,
         case when not r.rankable then r.key
         else (select store_search_tier(s.id_lower, s.name_lower, s.search_key, s.tags_lower, s.author_lower,
                                        s.name_words, $9, $10, $11)
                      + store_search_closeness(s.name_word_list, $13::text, l.near, l.close9, l.close8, l.close7,
                                               l.close6, l.close5, l.close4, l.close3)
                      -- Weights of D, C, B, A: description 0.2, author 0.5, tags and name 1.
                      + 200 * least(1, ts_rank('{0, 0.2, 0.5, 1}', s.search_words, plainto_tsquery('simple', $10)))
                 from plugin_search s, longest l
                where s.ctid = r.row_id)
         end as score
    from ranked r
)
select (case when (select yes from exact_fills_page) then (select count(*) from matches)
             else (select count(*) from candidates) end)::integer as total,
       r.*
  from (select 1) as one
  left join lateral (
    select s.id, s.score, s.install_count, s.rating_score, s.updated_at from scored s
     order by case when $14 = 'installs' then s.install_count end desc nulls last,
              case when $14 = 'rating' then s.rating_score end desc nulls last,
              case when $14 = 'updated' then s.updated_at end desc nulls last,
              case when $14 = 'oldest' then s.updated_at end asc nulls last,
              s.score desc, s.install_count desc, s.id
     limit $7 offset $8) as page on true
  left join plugin_summaries r on r.id = page.id
 order by case when $14 = 'installs' then page.install_count end desc nulls last,
          case when $14 = 'rating' then page.rating_score end desc nulls last,
          case when $14 = 'updated' then page.updated_at end desc nulls last,
          case when $14 = 'oldest' then page.updated_at end asc nulls last,
          page.score desc, page.install_count desc, page.id
