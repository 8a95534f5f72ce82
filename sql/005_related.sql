-- Related plugins (sql/queries/store/related-plugins.sql): at most
-- `wanted` approved plugins sharing a tag with the plugin or its submitter, most
-- shared tags first, then the same submitter, then the most installed, then id;
-- never the plugin itself. The plain query scored every plugin sharing any tag: at
-- 100,000 plugins a common tag is on 20,000 of them and it read the table
-- sequentially (298 ms). This function finds the same rows level by level, from
-- "shares all k tags" down to "shares one", and stops as soon as it has enough:
--
-- First, when the plugin's rarest tags are carried by few plugins (at most 2,000
-- together, by plugin_tag_counts, sql/002), those plugins are read through the tag
-- index and scored: any plugin sharing k - m + 1 or more of the k tags carries one
-- of the m rarest (prefix filtering), so those levels are complete at once.
--
-- Then level s, from the highest left: every plugin sharing more than s tags has
-- been chosen already (the levels above were exhausted), so the plugins sharing at
-- least s tags, minus those chosen, share exactly s, and among them the order is
-- the same submitter first (the submitter index), then the most installed (a walk
-- of plugins_status_installs, or the tag index when the planner sees few matches).
-- "Shares at least s tags" is an OR of "contains these s tags", each a GIN AND on
-- plugins_tags_lower answered without reading the table, when there are at most 20
-- such combinations: always for up to 6 tags. With more tags, the levels left are
-- scored at once as the plain definition does (a plugin with 7 to 20 tags costs
-- what it did before). Each step is a query of its own, planned with its values
-- (EXECUTE), so rare and common tags get their own plans, and one loop body returns
-- its rows and marks them taken. ROWS 6: the store asks for at most 6 (MAX_RELATED),
-- and with the default estimate of 1,000 the planner joined the answer to
-- plugin_summaries by a hash join over a sequential scan of plugins.
--
-- Last, if still short: the submitter's plugins sharing no tag.

-- The number of ways to choose s of k items, capped (only compared with a small bound).
create function store_choose(k integer, s integer) returns bigint
language sql immutable parallel safe as $$
  select case when s < 0 or s > k then 0
              else (select coalesce(round(exp(sum(ln(((k - least(s, k - s) + i)::numeric) / i)))), 1)::bigint
                      from generate_series(1, least(s, k - s)) as i)
         end
$$;

-- "Shares at least s of these tags" as SQL: an OR of "contains these s tags" (the
-- caller keeps the combinations few), or for s = 1 an overlap.
create function store_related_condition(tags text[], s integer) returns text
language plpgsql immutable parallel safe as $$
declare
  k integer := cardinality(tags);
  terms text;
begin
  if s = 1 then
    return format('p.tags_lower && %L::text[]', tags);
  end if;
  -- The combinations of min(s, k - s) positions (few, since there are at most 20),
  -- each naming the tags it picks, or for s > k / 2 the tags it leaves out.
  with recursive combination (picked, last) as (
    select array[i], i from generate_series(1, k) as i where least(s, k - s) > 0
    union all
    select c.picked || j, j from combination c cross join generate_series(c.last + 1, k) as j
     where cardinality(c.picked) < least(s, k - s)
  ), chosen (positions) as (
    select picked from combination where cardinality(picked) = least(s, k - s)
    union all
    select '{}'::integer[] where s = k
  )
  select string_agg(format('p.tags_lower @> %L::text[]',
                           (select array_agg(tags[i] order by i) from generate_series(1, k) as i
                             where (i = any (c.positions)) = (s <= k - s))), ' or ')
    into terms
    from chosen c;
  return terms;
end
$$;

create function store_related_plugins(self_id text, self_tags text[], self_submitter bigint, wanted integer)
returns table (id text, shared_tags integer, same_submitter boolean, install_count bigint)
language plpgsql stable rows 6 as $$
declare
  -- Plugins carrying the rarest tags that the first step may read.
  budget constant integer := 2000;
  ordered_tags text[];
  counts bigint[];
  k integer;
  rare integer := 0;
  rare_plugins bigint := 0;
  -- The step: k + 1 the rarest tags, k..1 that many shared tags, 0 no tag shared, -1 done.
  level integer;
  next_level integer;
  step text;
  taken text[] := array[self_id];
  found integer := 0;
  chosen record;
  -- Every approved plugin sharing a tag, scored as the plain definition does; $4 the
  -- tags, and a condition added by the step.
  scored constant text :=
    'select c.id, c.shared, c.same, c.install_count
       from (select p.id::text as id, p.install_count, coalesce(p.submitter_id = $1, false) as same,
                    (select count(*) from unnest(p.tags_lower) as t where t = any ($4))::integer as shared
               from plugins p
              where p.status = ''approved'' and p.id <> all ($2) and %s) as c
      where %s
      order by c.shared desc, c.same desc, c.install_count desc, c.id
      limit $3';
begin
  if wanted is null or wanted <= 0 then
    return;
  end if;
  -- Distinct, rarest first (for prefix filtering); ties by tag, so the order is fixed.
  select coalesce(array_agg(t.tag order by coalesce(c.plugins, 0), t.tag), '{}'),
         coalesce(array_agg(coalesce(c.plugins, 0) order by coalesce(c.plugins, 0), t.tag), '{}')
    into ordered_tags, counts
    from (select distinct x as tag from unnest(self_tags) as x where x is not null) as t
    left join plugin_tag_counts c on c.tag = t.tag and c.status = 'approved';
  k := cardinality(ordered_tags);

  -- The m rarest tags, while the plugins carrying them number at most `budget`.
  while rare < k and rare_plugins + counts[rare + 1] <= budget loop
    rare := rare + 1;
    rare_plugins := rare_plugins + counts[rare];
  end loop;
  level := case when rare > 0 then k + 1 else k end;

  while level >= 0 and found < wanted loop
    if level = k + 1 then
      -- The plugins carrying one of the m rarest tags (read through the tag index).
      -- Any plugin sharing k - m + 1 tags or more carries one of them, so those
      -- levels are complete here.
      step := format(scored, 'p.tags_lower && $4[1:$5]', 'c.shared >= $6 - $5 + 1');
      next_level := k - rare;
    elsif level = 0 then
      -- Last: the submitter's plugins sharing no tag.
      step := 'select p.id::text as id, 0 as shared, true as same, p.install_count from plugins p
                where p.status = ''approved'' and p.submitter_id = $1 and p.id <> all ($2)
                  and not (p.tags_lower && $4)
                order by p.install_count desc, p.id limit $3';
      next_level := -1;
    elsif store_choose(k, level) > 20 then
      -- Too many combinations of `level` tags (7 tags or more): the levels left are
      -- scored at once, over every plugin sharing a tag (what is taken excluded).
      step := format(scored, 'p.tags_lower && $4', 'true');
      next_level := 0;
    else
      -- Level s: every plugin sharing more than s tags is taken already, so those
      -- sharing at least s (an OR of GIN containments, store_related_condition) share
      -- exactly s; the submitter's own first, then the others by installs (two
      -- ordered arms, one query).
      step := format(
        'select u.id, $6 as shared, u.same, u.install_count from (
           (select p.id::text as id, true as same, p.install_count from plugins p
             where p.status = ''approved'' and p.submitter_id = $1 and p.id <> all ($2) and (%1$s)
             order by p.install_count desc, p.id limit $3)
           union all
           (select p.id::text, false, p.install_count from plugins p
             where p.status = ''approved'' and p.submitter_id is distinct from $1 and p.id <> all ($2) and (%1$s)
             order by p.install_count desc, p.id limit $3)) as u
         order by u.same desc, u.install_count desc, u.id limit $3',
        store_related_condition(ordered_tags, level));
      next_level := level - 1;
    end if;
    for chosen in execute step using self_submitter, taken, wanted - found, ordered_tags, rare, least(level, k) loop
      id := chosen.id;
      shared_tags := chosen.shared;
      same_submitter := chosen.same;
      install_count := chosen.install_count;
      return next;
      taken := taken || chosen.id;
      found := found + 1;
    end loop;
    level := next_level;
  end loop;
end
$$;
