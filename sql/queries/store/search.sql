-- Ranked, typo-tolerant search over id, name, author, tags and description, with the
-- list filters, a page and the total in one round trip.
-- Parameters: $1 viewer (users.id, null for visitors and public=1), $2 true when the
-- viewer sees everything (administrators), $3 status or null, $4 submitter (scope=mine)
-- or null, $5 tag (lower case) or null, $6 featured only, $7 limit, $8 offset,
-- $9 the query in lower case, $10 its words joined by one space, $11 the words
-- without spaces, $12 the words but the longest (text[]), $13 the longest word,
-- $14 the order: 'relevance', 'updated', 'rating' or 'installs'.
--
-- A plugin matches when its compact id or name contains the compact query ("mini
-- map" finds "minimap"), or when every word is found: close to its name by
-- trigrams (word similarity at least pg_trgm.word_similarity_threshold, 0.6, or
-- similarity to the whole name at least pg_trgm.similarity_threshold, 0.3:
-- "minimp", "minmap" and "waypionts" are found), inside its compact id or name,
-- or as a word or word prefix of its name, tags, author or description
-- (search_words). Each test is answered by an index (trigrams on search_key and
-- lower(name), full text on search_words), the longest word's first.
-- Rank: exact id or name, then compact equality, then prefixes, then an exact tag,
-- then the author, then a name word starting with the query; within a tier,
-- similarity to the name and id, then full-text rank (tags and name words, then
-- author, then description); then installs, then id.
with candidates as materialized (
  select p.id, p.install_count, p.rating_score, p.updated_at,
         (case
            when lower(p.id) = $9 or lower(p.name) = $9 or lower(p.name) = $10 then 10000
            -- search_key is "<compact id> <compact name>", and compact text has no spaces.
            when starts_with(p.search_key, $11 || ' ') or p.search_key like '% ' || $11 then 9000
            when starts_with(lower(p.name), $10) or starts_with(lower(p.id), $9) then 8000
            when starts_with(p.search_key, $11) or position(' ' || $11 in p.search_key) > 0 then 7000
            when p.tags_lower @> array[$10] then 6000
            when lower(p.author) = $10 then 5000
            when position(' ' || $10 in ' ' || regexp_replace(lower(p.name), '[^[:alnum:]]+', ' ', 'g')) > 0 then 4000
            else 0
          end)
         + 300 * greatest(word_similarity($10, lower(p.name)), word_similarity($10, lower(p.id)))
         -- Weights of D, C, B, A: description 0.2, author 0.5, tags and name 1.
         + 200 * least(1, ts_rank('{0, 0.2, 0.5, 1}', p.search_words, plainto_tsquery('simple', $10))) as score
    from plugins p
   where
       -- Visibility (src/site/plugins/visibility.ts): approved, own, or everything for administrators.
       (p.status = 'approved' or p.submitter_id = $1::bigint or $2::boolean)
   and ($3::text is null or p.status = $3::text)
   and ($4::bigint is null or p.submitter_id = $4::bigint)
   and ($5::text is null or p.tags_lower @> array[$5::text])
   and (not $6::boolean or p.featured)
   and (p.search_key like '%' || $11 || '%'
        or (($13 <% lower(p.name) or lower(p.name) % $13 or p.search_key like '%' || $13 || '%'
             or p.search_words @@ to_tsquery('simple', quote_literal($13) || ':*'))
            and not exists (
              select 1 from unnest($12::text[]) as word
               where not (word <% lower(p.name) or lower(p.name) % word or p.search_key like '%' || word || '%'
                          or p.search_words @@ to_tsquery('simple', quote_literal(word) || ':*')))))
)
select total.count::integer as total, r.*
  from (select count(*) from candidates) as total
  left join lateral (
    select c.id, c.score, c.install_count, c.rating_score, c.updated_at from candidates c
     order by case when $14 = 'installs' then c.install_count end desc nulls last,
              case when $14 = 'rating' then c.rating_score end desc nulls last,
              case when $14 = 'updated' then c.updated_at end desc nulls last,
              c.score desc, c.install_count desc, c.id
     limit $7 offset $8) as page on true
  left join plugin_summaries r on r.id = page.id
 order by case when $14 = 'installs' then page.install_count end desc nulls last,
          case when $14 = 'rating' then page.rating_score end desc nulls last,
          case when $14 = 'updated' then page.updated_at end desc nulls last,
          page.score desc, page.install_count desc, page.id
