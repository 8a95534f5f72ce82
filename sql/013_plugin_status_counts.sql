-- How many plugins each status holds, kept by a trigger in the same transaction as
-- the change. The store front (every approved plugin, no tag) needs a total on
-- every request; counting 100,000 index entries each time would cost more than the
-- page itself. Creations and reviews queue on their status's row, which is cheap
-- since they are rare next to reads.
create table plugin_status_counts (
  status plugin_status primary key,
  plugins bigint not null check (plugins >= 0)
);
insert into plugin_status_counts (status, plugins)
select s.status, (select count(*) from plugins p where p.status = s.status)
  from (values ('pending'), ('approved'), ('rejected')) as s (status);

create function store_count_statuses() returns trigger
language plpgsql as $$
begin
  if tg_op in ('UPDATE', 'DELETE') then
    update plugin_status_counts set plugins = plugins - 1 where status = old.status;
  end if;
  if tg_op in ('UPDATE', 'INSERT') then
    update plugin_status_counts set plugins = plugins + 1 where status = new.status;
  end if;
  return null;
end
$$;

create trigger plugins_count_statuses_insert_delete
  after insert or delete on plugins
  for each row execute function store_count_statuses();
create trigger plugins_count_statuses_update
  after update of status on plugins
  for each row when (old.status is distinct from new.status)
  execute function store_count_statuses();
