-- A page of plugins by rating_score, highest first (ties by id), and the total, in one
-- round trip. viewer_id: users.id, null for visitors and public=1; sees_all: true for
-- administrators; status, submitter_id (scope=mine), tag (lower case): null for any.
-- params: $1 viewer_id, $2 sees_all, $3 status, $4 submitter_id, $5 tag, $6 featured_only, $7 limit, $8 offset
--
-- list-updated.sql, list-rating.sql and list-installs.sql are one query in three
-- orders: they differ only in the column and index named for their sort
-- (test/db/list-queries.test.ts holds them to it).
--
-- Visibility (src/services/site/store/visibility.ts) is two arms: approved plugins (all
-- plugins for administrators), and the viewer's own unapproved ones. Each arm
-- walks an index in order (plugins_status_rating, plugins_submitter_updated) and stops
-- at offset + limit; an OR of the two could use neither index for the order.
-- The total of the store front (no submitter or featured filter) comes from
-- plugin_status_counts, or with a tag from plugin_tag_counts (both kept by
-- triggers), plus the viewer's own unapproved plugins (plugins_submitter_updated);
-- any other total counts through an index. An offset past the end still
-- answers one row: the total, with a null id.
select total.count::integer as total, r.*
  from (select case
                 when $4::bigint is null and not $6::boolean then
                   (case when $5::text is null then
                      (select coalesce(sum(c.plugins), 0) from plugin_status_counts c
                        where (c.status = 'approved' or $2::boolean) and ($3::text is null or c.status = $3::text))
                    else
                      (select coalesce(sum(c.plugins), 0) from plugin_tag_counts c
                        where c.tag = $5::text
                          and (c.status = 'approved' or $2::boolean) and ($3::text is null or c.status = $3::text))
                    end)
                   + (select count(*) from plugins p
                       where p.submitter_id = $1::bigint and p.status <> 'approved' and not $2::boolean
                         and ($3::text is null or p.status = $3::text)
                         and ($5::text is null or p.tags_lower @> array[$5::text]))
                 else (select count(*) from plugins p
                        where
                            (p.status = 'approved' or p.submitter_id = $1::bigint or $2::boolean)
                        and ($3::text is null or p.status = $3::text)
                        and ($4::bigint is null or p.submitter_id = $4::bigint)
                        and ($5::text is null or p.tags_lower @> array[$5::text])
                        and (not $6::boolean or p.featured))
               end as count) as total
  left join lateral (
    select u.id from (
      (select p.id, p.rating_score from plugins p
        where
            (p.status = 'approved' or $2::boolean)
        and ($3::text is null or p.status = $3::text)
        and ($4::bigint is null or p.submitter_id = $4::bigint)
        and ($5::text is null or p.tags_lower @> array[$5::text])
        and (not $6::boolean or p.featured)
        order by p.rating_score desc, p.id
        limit $7::bigint + $8::bigint)
      union all
      (select p.id, p.rating_score from plugins p
        where
            p.submitter_id = $1::bigint and p.status <> 'approved' and not $2::boolean
        and ($3::text is null or p.status = $3::text)
        and ($4::bigint is null or p.submitter_id = $4::bigint)
        and ($5::text is null or p.tags_lower @> array[$5::text])
        and (not $6::boolean or p.featured)
        order by p.rating_score desc, p.id
        limit $7::bigint + $8::bigint)
    ) as u
    order by u.rating_score desc, u.id
    limit $7 offset $8) as page on true
  left join plugin_summaries r on r.id = page.id
 order by r.rating_score desc, r.id
