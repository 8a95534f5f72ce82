-- How many plugins carry each tag, per status, kept by triggers in the same
-- transaction as the change (like plugin_status_counts, 013 and 016). A list
-- filtered by a tag needs its total on every request; a common tag is on a fifth of
-- the catalogue, and counting it meant reading 20,000 rows at 100,000 plugins
-- (228 ms, a sequential scan). The lists read one or three rows here instead.
--
-- Tags are counted in their stored lower-case form (tags_lower, 015), the form the
-- tag filter compares. Rows that fall to zero stay (a tag may come back); there is
-- at most one row per tag ever used and status.
create table plugin_tag_counts (
  tag text not null,
  status plugin_status not null,
  plugins bigint not null check (plugins >= 0),
  primary key (tag, status)
);
insert into plugin_tag_counts (tag, status, plugins)
select t.tag, p.status, count(*)
  from plugins p cross join unnest(p.tags_lower) as t (tag)
 group by t.tag, p.status;

-- Adds `delta` to the counts of (tag, status) pairs, in the order of the pairs, so
-- that concurrent writers lock the rows in one order and cannot deadlock on them.
-- A missing row is created (its count can only grow from nothing).
create function store_shift_tag_counts(tags text[], statuses text[], deltas bigint[]) returns void
language plpgsql as $$
declare
  change record;
begin
  for change in
    select d.tag, d.status, sum(d.delta) as delta
      from unnest(tags, statuses, deltas) as d (tag, status, delta)
     group by d.tag, d.status
    having sum(d.delta) <> 0
     order by d.tag, d.status
  loop
    if change.delta > 0 then
      insert into plugin_tag_counts as c (tag, status, plugins) values (change.tag, change.status, change.delta)
      on conflict (tag, status) do update set plugins = c.plugins + excluded.plugins;
    else
      update plugin_tag_counts c set plugins = c.plugins + change.delta
       where c.tag = change.tag and c.status = change.status;
    end if;
  end loop;
end
$$;

-- Inserts and deletes count once per statement (transition tables), so a bulk load
-- (the seed's batches of 5,000, a COPY) updates each tag's row once, not per plugin.
create function store_count_inserted_tags() returns trigger
language plpgsql as $$
begin
  insert into plugin_tag_counts as c (tag, status, plugins)
  select t.tag, n.status, count(*)
    from inserted n cross join unnest(n.tags_lower) as t (tag)
   group by t.tag, n.status
   order by t.tag, n.status
  on conflict (tag, status) do update set plugins = c.plugins + excluded.plugins;
  return null;
end
$$;

create function store_count_deleted_tags() returns trigger
language plpgsql as $$
begin
  perform store_shift_tag_counts(array_agg(g.tag), array_agg(g.status), array_agg(-g.plugins))
     from (select t.tag, o.status::text as status, count(*) as plugins
             from deleted o cross join unnest(o.tags_lower) as t (tag)
            group by t.tag, o.status) as g;
  return null;
end
$$;

-- An update moves the plugin's tags out of the old (tags, status) and into the new;
-- the pairs both sides share cancel out.
create function store_count_updated_tags() returns trigger
language plpgsql as $$
begin
  perform store_shift_tag_counts(
    old.tags_lower || new.tags_lower,
    array_fill(old.status::text, array[cardinality(old.tags_lower)])
      || array_fill(new.status::text, array[cardinality(new.tags_lower)]),
    array_fill(-1::bigint, array[cardinality(old.tags_lower)])
      || array_fill(1::bigint, array[cardinality(new.tags_lower)]));
  return null;
end
$$;

create trigger plugins_count_tags_insert
  after insert on plugins
  referencing new table as inserted
  for each statement execute function store_count_inserted_tags();
create trigger plugins_count_tags_delete
  after delete on plugins
  referencing old table as deleted
  for each statement execute function store_count_deleted_tags();
-- Row-level, and only when the tags or the status change: install clicks and
-- ratings update plugins all the time and fire nothing here.
create trigger plugins_count_tags_update
  after update of tags, status on plugins
  for each row when (old.tags_lower is distinct from new.tags_lower or old.status is distinct from new.status)
  execute function store_count_updated_tags();
