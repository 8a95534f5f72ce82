-- A number that grows with every committed change to what a visitor sees in the
-- store's lists and details. Each site process keeps the visitors' answers it built, tagged
-- with the number it read before building them (src/site/store/visitor-answers.ts);
-- a request reads the number (one indexed row) and reuses an answer only when it is
-- unchanged. Because the number changes in the same transaction as the data, a
-- reader sees both or neither: no process, however many run, serves a list older
-- than the last commit.
--
-- The bump is a deferred constraint trigger, so it runs at commit, after every other
-- lock the transaction takes: transactions queue on this one row only for the
-- moment of their commit, and cannot deadlock on it. A transaction bumps it once,
-- however many rows it changes (a flag local to the transaction).
create table store_generation (
  only_row boolean primary key default true check (only_row),
  generation bigint not null
);
insert into store_generation (only_row, generation) values (true, 1);

create function store_bump_generation() returns trigger
language plpgsql as $$
begin
  if current_setting('launcher.store_generation_bumped', true) is distinct from 'on' then
    perform set_config('launcher.store_generation_bumped', 'on', true);
    update store_generation set generation = generation + 1;
  end if;
  return null;
end
$$;

create constraint trigger plugins_bump_generation
  after insert or update or delete on plugins
  deferrable initially deferred
  for each row execute function store_bump_generation();

-- A list shows the submitter's user name.
create constraint trigger users_bump_generation
  after update of username on users
  deferrable initially deferred
  for each row when (old.username is distinct from new.username)
  execute function store_bump_generation();

-- TRUNCATE has no row triggers; it bumps at once (it locks the whole table anyway).
create trigger plugins_truncate_bumps_generation
  after truncate on plugins
  for each statement execute function store_bump_generation();
