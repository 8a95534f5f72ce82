-- Related plugins, exactly as before (sql/queries/store/related-plugins.sql): at most
-- `wanted` approved plugins sharing a tag with the plugin or its submitter, most
-- shared tags first, then the same submitter, then the most installed, then id;
-- never the plugin itself. The plain query scored every plugin sharing any tag: at
-- 100,000 plugins a common tag is on 20,000 of them and it read the table
-- sequentially (298 ms). This function finds the same rows level by level, from
-- "shares all k tags" down to "shares one", and stops as soon as it has enough:
--
-- First, when the plugin's rarest tags are carried by few plugins (at most 2,000
-- together, by plugin_tag_counts, sql/020), those plugins are read through the tag
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
-- what it did before). Each level's query is planned with its values (EXECUTE), so
-- rare and common tags get their own plans.
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
language plpgsql stable as $$
declare
  -- Plugins carrying the rarest tags that the first step may read.
  budget constant integer := 2000;
  ordered_tags text[];
  counts bigint[];
  k integer;
  rare integer := 0;
  rare_plugins bigint := 0;
  top integer;
  taken text[] := array[self_id];
  found integer := 0;
  chosen record;
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

  -- First step: the plugins carrying one of the m rarest tags, while they number at
  -- most `budget` (tags[1:m], read through the tag index). Any plugin sharing
  -- k - m + 1 tags or more carries one of them, so those levels are complete here.
  while rare < k and rare_plugins + counts[rare + 1] <= budget loop
    rare := rare + 1;
    rare_plugins := rare_plugins + counts[rare];
  end loop;
  top := k;
  if rare > 0 then
    for chosen in
      select c.id, c.shared, c.same, c.install_count
        from (select p.id::text as id, p.install_count, coalesce(p.submitter_id = self_submitter, false) as same,
                     (select count(*) from unnest(p.tags_lower) as t where t = any (ordered_tags))::integer as shared
                from plugins p
               where p.status = 'approved' and p.tags_lower && ordered_tags[1:rare] and p.id <> self_id) as c
       where c.shared >= k - rare + 1
       order by c.shared desc, c.same desc, c.install_count desc, c.id
       limit wanted
    loop
      id := chosen.id;
      shared_tags := chosen.shared;
      same_submitter := chosen.same;
      install_count := chosen.install_count;
      return next;
      taken := taken || chosen.id;
      found := found + 1;
    end loop;
    if found >= wanted then
      return;
    end if;
    top := k - rare;
  end if;

  -- Then level by level: the submitter's own plugins at this level first, then the
  -- others by installs (two ordered arms, one query).
  for s in reverse top..1 loop
    -- Too many combinations of s tags (7 tags or more): the rest is scored as the
    -- plain definition does, over every plugin sharing a tag (what is taken excluded).
    if store_choose(k, s) > 20 then
      for chosen in
        select c.id, c.shared, c.same, c.install_count
          from (select p.id::text as id, p.install_count, coalesce(p.submitter_id = self_submitter, false) as same,
                       (select count(*) from unnest(p.tags_lower) as t where t = any (ordered_tags))::integer as shared
                  from plugins p
                 where p.status = 'approved' and p.tags_lower && ordered_tags and p.id <> all (taken)) as c
         order by c.shared desc, c.same desc, c.install_count desc, c.id
         limit wanted - found
      loop
        id := chosen.id;
        shared_tags := chosen.shared;
        same_submitter := chosen.same;
        install_count := chosen.install_count;
        return next;
        taken := taken || chosen.id;
        found := found + 1;
      end loop;
      exit;
    end if;
    for chosen in execute format(
      'select u.id, u.same, u.install_count from (
         (select p.id::text as id, true as same, p.install_count from plugins p
           where p.status = ''approved'' and p.submitter_id = $1 and p.id <> all ($2) and (%1$s)
           order by p.install_count desc, p.id limit $3)
         union all
         (select p.id::text, false, p.install_count from plugins p
           where p.status = ''approved'' and p.submitter_id is distinct from $1 and p.id <> all ($2) and (%1$s)
           order by p.install_count desc, p.id limit $3)) as u
       order by u.same desc, u.install_count desc, u.id limit $3',
      store_related_condition(ordered_tags, s))
      using self_submitter, taken, wanted - found
    loop
      id := chosen.id;
      shared_tags := s;
      same_submitter := chosen.same;
      install_count := chosen.install_count;
      return next;
      taken := taken || chosen.id;
      found := found + 1;
    end loop;
    if found >= wanted then
      return;
    end if;
  end loop;

  -- Last: the submitter's plugins sharing no tag.
  return query
    select p.id::text, 0, true, p.install_count
      from plugins p
     where p.status = 'approved' and p.submitter_id = self_submitter and p.id <> all (taken)
       and not (p.tags_lower && ordered_tags)
     order by p.install_count desc, p.id
     limit wanted - found;
end
$$;
