-- store_related_plugins (sql/021), the same choice with one loop: each step (the
-- rarest tags, a level of shared tags, the rest scored at once, the submitter's
-- plugins sharing no tag) is a query of its own, and one loop body returns its rows
-- and marks them taken, where 021 repeated that body after each of four queries.
-- Every step's query is now planned with its values (EXECUTE), as the levels were.
-- ROWS 6 as sql/022 set it (CREATE OR REPLACE would put back the default 1,000).
create or replace function store_related_plugins(self_id text, self_tags text[], self_submitter bigint, wanted integer)
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
