-- Ranked, typo-tolerant search over id, name, author, tags and description, with the
-- list filters, a page and the total in one round trip.
-- Parameters: $1 viewer (users.id, null for visitors and public=1), $2 true when the
-- viewer sees everything (administrators), $3 status or null, $4 submitter (scope=mine)
-- or null, $5 tag (lower case) or null, $6 featured only, $7 limit, $8 offset,
-- $9 the query in lower case, $10 its words joined by one space, $11 the words
-- without spaces, $12 the words but the longest (text[]), $13 the longest word,
-- $14 the order: 'relevance', 'updated', 'rating' or 'installs'.
--
-- It reads plugin_search, the narrow copy of what search looks at (sql/060).
-- A plugin matches when its compact id or name contains the compact query ("mini
-- map" finds "minimap"), or when every word is found: as a word or word prefix of
-- its name, tags, author or description (search_words), inside its compact id or
-- name, or as a name word close to it by trigrams (a typo: "minimp", "minmap",
-- "waypionts"). Typos are looked up once per query in plugin_name_words (trigram
-- similarity at least pg_trgm.similarity_threshold, 0.3, or word similarity at
-- least pg_trgm.word_similarity_threshold, 0.6), then the plugins carrying one of
-- those words by an exact index; no trigram is computed per plugin. Each test is
-- answered by an index, the longest word's first.
--
-- Rank: a tier (exact id or name, then compact equality, then prefixes, then an
-- exact tag, then the author, then a name word starting with the query), then
-- within it how close the name's best word is to the longest query word (word
-- similarity in tenths) and the full-text rank (tags and name words, then author,
-- then description), then installs, then id.
--
-- The tier is cheap; the rest is computed only where it can change the page: the
-- candidates are cut at the key of the (offset + limit)-th one (the tier, or the
-- column a sort names), and only those at or above it are scored. The total is a
-- plain count of the candidates.
with longest as materialized (
  select to_tsquery('simple', quote_literal($13::text) || ':*') as prefix,
         to_tsquery('simple', quote_literal($11::text) || ':*') as compact,
         to_tsquery('simple', quote_literal($11::text) || ':* | ' || quote_literal($13::text) || ':*') as starts,
         coalesce(array_agg(v.word), '{}') as near,
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
others as materialized (
  select to_tsquery('simple', quote_literal(o.word) || ':*') as prefix,
         array(select w.word from plugin_name_words w where w.word % o.word or o.word <% w.word) as near
    from unnest($12::text[]) as o (word)
),
-- Every plugin the query finds, with the list filters.
matches as not materialized (
  select s.ctid as row_id, s.*
    from plugin_search s
   where
       -- Visibility (src/site/plugins/visibility.ts): approved, own, or everything for administrators.
       (s.status = 'approved' or s.submitter_id = $1::bigint or $2::boolean)
   and ($3::text is null or s.status = $3::text)
   and ($4::bigint is null or s.submitter_id = $4::bigint)
   and ($5::text is null or s.tags_lower @> array[$5::text])
   and (not $6::boolean or s.featured)
   -- Found by an index: the compact query or the longest word begins a word, or a
   -- name word is close to the longest word.
   and (s.search_words @@ (select starts from longest) or s.name_word_list && (select near from longest))
   -- With more words: the compact query begins a word, or every word is found.
   and (cardinality($12::text[]) = 0
        or s.search_words @@ (select compact from longest)
        or ((s.search_words @@ (select prefix from longest) or s.name_word_list && (select near from longest))
            and not exists (
              select 1 from others o
               where not (s.search_words @@ o.prefix or s.name_word_list && o.near))))
),
-- The first tier, looked up by its own indexes: the query is the plugin's id or
-- name. When these fill the page (a common name: "map", "chat"), nothing else is
-- ranked and the total is a plain count.
exact as materialized (
  select m.row_id, m.id, m.install_count, m.rating_score, m.updated_at, 10000 as tier,
         store_search_closeness(m.name_word_list, $13::text, l.near, l.close9, l.close8, l.close7, l.close6,
                                l.close5, l.close4, l.close3) as closeness
    from matches m, longest l
   where m.name_lower = $10 or m.name_lower = $9 or m.id_lower = $9
),
exact_fills_page as (
  select $14 = 'relevance' and count(*) >= $7::integer + $8::integer as yes from exact
),
-- Otherwise every match gets its tier (cheap) and its closeness.
candidates as materialized (
  select ranked.*,
         case $14
           when 'installs' then ranked.install_count::double precision
           when 'rating' then ranked.rating_score
           -- Rounding to a double keeps the order (never swaps two times), which is all the cut needs.
           when 'updated' then extract(epoch from ranked.updated_at)::double precision
           else ranked.tier + ranked.closeness
         end as key
    from (
      select m.row_id, m.id, m.install_count, m.rating_score, m.updated_at,
             case
               when m.id_lower = $9 or m.name_lower = $9 or m.name_lower = $10 then 10000
               -- search_key is "<compact id> <compact name>", and compact text has no spaces.
               when starts_with(m.search_key, $11 || ' ') or m.search_key like '% ' || $11 then 9000
               when starts_with(m.name_lower, $10) or starts_with(m.id_lower, $9) then 8000
               when starts_with(m.search_key, $11) or position(' ' || $11 in m.search_key) > 0 then 7000
               when m.tags_lower @> array[$10] then 6000
               when m.author_lower = $10 then 5000
               when position(' ' || $10 in m.name_words) > 0 then 4000
               else 0
             end as tier,
             store_search_closeness(m.name_word_list, $13::text, l.near, l.close9, l.close8, l.close7, l.close6,
                                    l.close5, l.close4, l.close3) as closeness
        from matches m, longest l
    ) as ranked
),
-- The key of the last row the page can show. The full-text rank adds at most 200
-- to a relevance key, so rows more than that below it cannot reach the page.
cut as (
  select c.key - case when $14 = 'relevance' then 200 else 0 end as key
    from candidates c order by c.key desc offset $7::integer + $8::integer - 1 limit 1
),
ranked as (
  select e.row_id, e.id, e.install_count, e.rating_score, e.updated_at, e.tier + e.closeness as base
    from exact e
   where (select yes from exact_fills_page)
  union all
  select c.row_id, c.id, c.install_count, c.rating_score, c.updated_at, c.tier + c.closeness
    from candidates c
   where not (select yes from exact_fills_page)
     and c.key >= coalesce((select key from cut), '-infinity')
),
scored as (
  select r.id, r.install_count, r.rating_score, r.updated_at,
         r.base
         -- Weights of D, C, B, A: description 0.2, author 0.5, tags and name 1.
         -- (Read again by the row's address: only these rows pay for their words.)
         + (select 200 * least(1, ts_rank('{0, 0.2, 0.5, 1}', s.search_words, plainto_tsquery('simple', $10)))
              from plugin_search s where s.ctid = r.row_id) as score
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
              s.score desc, s.install_count desc, s.id
     limit $7 offset $8) as page on true
  left join plugin_summaries r on r.id = page.id
 order by case when $14 = 'installs' then page.install_count end desc nulls last,
          case when $14 = 'rating' then page.rating_score end desc nulls last,
          case when $14 = 'updated' then page.updated_at end desc nulls last,
          page.score desc, page.install_count desc, page.id
