-- Moderation of ratings that outlives the rating (src/site/reports): one record per
-- (plugin, rater). Hiding lived on the rating row alone, so a rater whose rating was
-- hidden deleted it, rated again and was back in the lists and the statistics.
-- Now a rating written while its rater's record says hidden starts hidden (the
-- trigger below, whatever writes it), until an administrator unhides it.
create table rating_moderation (
  plugin_id text not null references plugins (id) on delete cascade,
  user_id bigint not null references users (id) on delete cascade,
  hidden boolean not null,
  changed_by bigint references users (id) on delete set null,
  changed_at timestamptz not null default now(),
  primary key (plugin_id, user_id)
);

-- The ratings hidden so far keep their moderation when deleted from now on.
insert into rating_moderation (plugin_id, user_id, hidden)
select plugin_id, user_id, true from plugin_ratings where hidden;

-- A new rating of a hidden rater is hidden before the star trigger
-- (011_plugin_ratings.sql, 042_reports.sql) counts it, so it never counts.
-- The plugin row's lock, which that trigger takes anyway, is taken first: a hide
-- holding it (set_rating_hidden) has committed its record before we read it.
create function store_rating_starts_hidden() returns trigger
language plpgsql as $$
begin
  perform 1 from plugins where id = new.plugin_id for no key update;
  if exists (select 1 from rating_moderation m
              where m.plugin_id = new.plugin_id and m.user_id = new.user_id and m.hidden) then
    new.hidden := true;
  end if;
  return new;
end
$$;
create trigger plugin_ratings_start_hidden
  before insert on plugin_ratings
  for each row execute function store_rating_starts_hidden();

-- Hides ($3 true) or shows ($3 false) user $2's rating of plugin $1 by administrator
-- $4: the record first, then the rating if there is one (the star trigger moves the
-- counts). One row, whether it was hidden before; none when showing a rater with
-- neither a rating nor a record (nothing to show). Hiding needs no rating: one
-- deleted after it was reported stays hidden when it comes back.
-- Statements in turn, not one: after waiting for the plugin's lock, the update must
-- see a rating committed meanwhile.
create function set_rating_hidden(p_plugin text, p_user bigint, p_hidden boolean, p_by bigint)
returns table (was_hidden boolean)
language plpgsql as $$
declare
  rated boolean;
  recorded boolean;
begin
  perform 1 from plugins where id = p_plugin for no key update;
  select r.hidden into rated from plugin_ratings r where r.plugin_id = p_plugin and r.user_id = p_user;
  select m.hidden into recorded from rating_moderation m where m.plugin_id = p_plugin and m.user_id = p_user;
  if not p_hidden and rated is null and recorded is null then
    return;
  end if;
  insert into rating_moderation as m (plugin_id, user_id, hidden, changed_by)
  values (p_plugin, p_user, p_hidden, p_by)
  on conflict (plugin_id, user_id) do update
     set hidden = excluded.hidden, changed_by = excluded.changed_by, changed_at = now();
  update plugin_ratings set hidden = p_hidden
   where plugin_id = p_plugin and user_id = p_user and hidden is distinct from p_hidden;
  return query select coalesce(rated, false) or coalesce(recorded, false);
end
$$;
