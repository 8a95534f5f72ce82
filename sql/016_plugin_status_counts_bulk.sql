-- plugin_status_counts for bulk writes: a row-level trigger on insert and delete
-- updated the counts row once per plugin, so seeding 100,000 plugins meant 100,000
-- updates of one row. Statement-level triggers with transition tables count a whole
-- statement's rows at once. Status changes stay row-level (UPDATE OF status with a
-- WHEN clause), so updates that leave the status alone (install clicks, ratings)
-- never fire anything.
drop trigger plugins_count_statuses_insert_delete on plugins;

create function store_count_inserted_statuses() returns trigger
language plpgsql as $$
begin
  update plugin_status_counts c set plugins = c.plugins + n.plugins
    from (select status, count(*) as plugins from inserted group by status) as n
   where c.status = n.status;
  return null;
end
$$;

create function store_count_deleted_statuses() returns trigger
language plpgsql as $$
begin
  update plugin_status_counts c set plugins = c.plugins - n.plugins
    from (select status, count(*) as plugins from deleted group by status) as n
   where c.status = n.status;
  return null;
end
$$;

create trigger plugins_count_statuses_insert
  after insert on plugins
  referencing new table as inserted
  for each statement execute function store_count_inserted_statuses();
create trigger plugins_count_statuses_delete
  after delete on plugins
  referencing old table as deleted
  for each statement execute function store_count_deleted_statuses();
