-- The plugin store: plugins, the pending update of an approved plugin, the last
-- review, the revision a review names, install counts and the click
-- de-duplication, and the per-status and per-tag counts kept by triggers. Ratings
-- are in 003, search in 004, related plugins in 005, versions, package checks and
-- the views lists and details read in 007, the generations kept answers are tagged
-- with in 008.
-- Every plugin field rule (docs/api.md,
-- "Plugin store") is also a constraint here, so no code path can store what the API
-- would refuse (the API checks first, to name the offending field; these are the
-- net). Only PostgreSQL 15 features.
--
-- Lengths are in characters (char_length counts code points in a UTF-8 database).

create extension if not exists pg_trgm;

-- Field rules, shared by the live record and the pending update.
create domain plugin_id as text
  check (value ~ '^[A-Za-z0-9._-]{3,128}$');
create domain plugin_name as text
  check (char_length(value) between 1 and 100);
create domain plugin_version as text
  check (char_length(value) between 1 and 64);
create domain plugin_author as text
  check (char_length(value) <= 100);
create domain plugin_description as text
  check (char_length(value) <= 500);
create domain plugin_long_description as text
  check (char_length(value) <= 20000);
-- https, a host without user or password, a path ending in .zip (any case). Or a
-- hosted package (sql/007): the image host's public URL of
-- /pkg/<sha256>/<name>.zip, which is http where the image host is served over http
-- (a test, a LAN). The API refuses http links (validation.ts); only this one shape
-- is let through beside them.
create domain plugin_download as text
  check (char_length(value) <= 2048
         and (value ~ '^https://[^/?#@[:space:]]+/[^?#[:space:]]*\.[zZ][iI][pP]([?#][^[:space:]]*)?$'
              or value ~ '^http://[^/?#@[:space:]]+(/[A-Za-z0-9._~-]+)*/pkg/[0-9a-f]{64}/[A-Za-z0-9][A-Za-z0-9._-]{0,99}\.zip$'));
create domain plugin_sha256 as text
  check (value ~ '^[0-9a-f]{64}$');
create domain plugin_https_url as text
  check (char_length(value) <= 2048 and value ~ '^https://[^[:space:]]+$');
-- https, or an in-site path: one leading slash, not `//` or `/\` (which browsers
-- read as another host).
create domain plugin_link as text
  check (char_length(value) <= 2048
         and value ~ '^(https://[^[:space:]]+|/([^/\\[:space:]][^[:space:]]*)?)$');
create domain plugin_status as text
  check (value in ('pending', 'approved', 'rejected'));

-- Tags and permissions: at most max_items entries of 1..max_length characters,
-- none containing a separator (comma, Chinese comma, white space), no duplicates
-- (tags compared case-insensitively, since the tag filter is).
create function store_word_list_ok(items text[], max_items integer, max_length integer, fold_case boolean)
returns boolean language sql immutable parallel safe as $$
  select cardinality(items) <= max_items
     and coalesce(array_ndims(items), 1) = 1
     and not exists (
       select 1 from unnest(items) as item
        where item is null
           or char_length(item) not between 1 and max_length
           or item ~ '[,，[:space:]]')
     and (select count(distinct case when fold_case then lower(item) else item end) from unnest(items) as item)
         = cardinality(items)
$$;
create domain plugin_tags as text[]
  check (store_word_list_ok(value, 20, 32, true));
create domain plugin_permissions as text[]
  check (store_word_list_ok(value, 32, 64, false));

-- Screenshots: at most 8, each a link string or {url, webpUrl?} of links. The
-- check's body is SQL-standard (begin atomic): parsed once, here, with
-- store_link_ok bound by reference, so it runs the same under any search_path.
-- pg_restore (and the SQL pg_dump writes) load rows with an empty one, where a
-- name looked up when the check runs is not found ("function store_link_ok(jsonb)
-- does not exist"); pg_dump also orders it after store_link_ok by that dependency.
create function store_link_ok(value jsonb) returns boolean
language sql immutable parallel safe as $$
  select coalesce(jsonb_typeof(value) = 'string'
                  and char_length(value #>> '{}') <= 2048
                  and (value #>> '{}') ~ '^(https://[^[:space:]]+|/([^/\\[:space:]][^[:space:]]*)?)$', false)
$$;
create function store_screenshots_ok(items jsonb) returns boolean
language sql immutable parallel safe
begin atomic
  select jsonb_typeof(items) = 'array'
     and jsonb_array_length(items) <= 8
     and not exists (
       select 1 from jsonb_array_elements(items) as shot
        where not (
          store_link_ok(shot)
          or (jsonb_typeof(shot) = 'object'
              and (shot - 'url' - 'webpUrl') = '{}'::jsonb
              and store_link_ok(shot -> 'url')
              and (not shot ? 'webpUrl' or store_link_ok(shot -> 'webpUrl')))));
end;
create domain plugin_screenshots as jsonb
  check (store_screenshots_ok(value));

-- The tags in lower case (the tag filter and related plugins compare them so).
create function store_lower_tags(tags text[]) returns text[]
language sql immutable parallel safe as $$
  select coalesce(array_agg(lower(tag) order by ordinality), '{}') from unnest(tags) with ordinality as tag
$$;

-- Every plugin's record, as its author and administrators see it, carries a
-- `revision`: an opaque string that changes with every change to the plugin or to
-- its pending update. A review may name the revision it was made on, and is refused
-- (409) when the plugin changed meanwhile (src/services/site/store/plugin-writes.ts). Both
-- tables take their numbers from this one sequence, so every change draws a number
-- larger than any drawn before, and the record's revision is the larger of the
-- plugin's and its pending update's: an edit of either gives a number never shown
-- before. The sequence lives in PostgreSQL, so every site process agrees.
create sequence plugin_revisions;

create table plugins (
  id plugin_id primary key,
  submitter_id bigint not null references users (id),
  name plugin_name not null,
  version plugin_version not null,
  author plugin_author not null default '',
  description plugin_description not null default '',
  long_description plugin_long_description not null default '',
  download plugin_download not null,
  sha256 plugin_sha256,
  url plugin_https_url,
  icon plugin_link,
  tags plugin_tags not null default '{}',
  permissions plugin_permissions not null default '{}',
  screenshots plugin_screenshots not null default '[]',
  status plugin_status not null default 'pending',
  featured boolean not null default false,
  install_count bigint not null default 0 check (install_count >= 0),
  -- Star distribution, kept by the trigger on plugin_ratings (003) in the rating's
  -- own transaction; count, sum and the sort score are derived from it, so they
  -- can never disagree with it.
  stars_1 integer not null default 0 check (stars_1 >= 0),
  stars_2 integer not null default 0 check (stars_2 >= 0),
  stars_3 integer not null default 0 check (stars_3 >= 0),
  stars_4 integer not null default 0 check (stars_4 >= 0),
  stars_5 integer not null default 0 check (stars_5 >= 0),
  rating_count integer generated always as (stars_1 + stars_2 + stars_3 + stars_4 + stars_5) stored,
  rating_sum integer generated always as (stars_1 + 2 * stars_2 + 3 * stars_3 + 4 * stars_4 + 5 * stars_5) stored,
  -- sort=rating: the Bayesian average with a prior of 5 ratings of 3 stars, so one
  -- 5-star rating (3.33) does not outrank a hundred 4.8s (4.71). A fixed prior keeps
  -- it a function of the row alone, hence indexable.
  rating_score double precision generated always as (
    (15.0 + stars_1 + 2 * stars_2 + 3 * stars_3 + 4 * stars_4 + 5 * stars_5)
    / (5 + stars_1 + stars_2 + stars_3 + stars_4 + stars_5)) stored,
  -- The last review; all null until the first.
  review_action text check (review_action in ('approve', 'reject')),
  review_reason text check (char_length(review_reason) <= 1000),
  reviewed_at timestamptz,
  reviewed_by bigint references users (id),
  created_at timestamptz not null default now(),
  -- Content changes and reviews; not install clicks or ratings.
  updated_at timestamptz not null default now(),
  -- The tags in lower case, stored: the tag filter and related plugins read them for
  -- every candidate row, and computing them there (store_lower_tags, an SQL function
  -- over unnest) cost more than the rest of those queries at 100,000 plugins.
  tags_lower text[] generated always as (store_lower_tags(tags)) stored,
  -- Drawn anew by every change a review reads (plugins_next_revision below).
  revision bigint not null default nextval('plugin_revisions'),
  check ((review_action is null) = (reviewed_at is null))
);

-- Ids are unique case-insensitively, and looked up that way.
create unique index plugins_id_lower on plugins (lower(id));
-- Behind every list order, with the status filter most lists carry in front.
create index plugins_status_updated on plugins (status, updated_at desc, id);
create index plugins_status_installs on plugins (status, install_count desc, id);
create index plugins_status_rating on plugins (status, rating_score desc, id);
-- The lists in updated order that see every status (an administrator's ?limit=100
-- and ?scope=admin without a status, the review page's first read): the status
-- indexes serve one status at a time, so without this each such page read all
-- plugins and sorted them (bench-store at 10,000 plugins: a sequential scan and a
-- top-N sort, 53 ms on a busy machine). With it the page walks the index in order
-- and stops at offset + limit. The installs and rating orders were measured
-- without a match: at offset 5,000 PostgreSQL then preferred a scan.
create index plugins_updated on plugins (updated_at desc, id);
create index plugins_submitter_updated on plugins (submitter_id, updated_at desc, id);
create index plugins_featured_updated on plugins (updated_at desc, id) where featured;
create index plugins_tags_lower on plugins using gin (tags_lower);

-- An author's edit of an approved plugin waits here for review; the live record
-- stays as it was. One per plugin: a second edit merges into it. Only the fields in
-- `changed` are meaningful, each under the same rule as in plugins.
create table plugin_pending_updates (
  plugin_id text primary key references plugins (id) on delete cascade,
  changed text[] not null check (
    cardinality(changed) > 0
    and changed <@ array['name', 'version', 'author', 'description', 'longDescription', 'download', 'sha256',
                         'url', 'icon', 'tags', 'permissions', 'screenshots']::text[]),
  name plugin_name,
  version plugin_version,
  author plugin_author,
  description plugin_description,
  long_description plugin_long_description,
  download plugin_download,
  sha256 plugin_sha256,
  url plugin_https_url,
  icon plugin_link,
  tags plugin_tags,
  permissions plugin_permissions,
  screenshots plugin_screenshots,
  submitted_at timestamptz not null default now(),
  -- Drawn anew by every write of the update (plugin_pending_updates_next_revision).
  revision bigint not null default nextval('plugin_revisions'),
  -- Required fields of the live record cannot be changed to nothing.
  check (not ('name' = any (changed)) or name is not null),
  check (not ('version' = any (changed)) or version is not null),
  check (not ('author' = any (changed)) or author is not null),
  check (not ('description' = any (changed)) or description is not null),
  check (not ('longDescription' = any (changed)) or long_description is not null),
  check (not ('download' = any (changed)) or download is not null),
  check (not ('tags' = any (changed)) or tags is not null),
  check (not ('permissions' = any (changed)) or permissions is not null),
  check (not ('screenshots' = any (changed)) or screenshots is not null)
);
-- The review queue (GET /apps/api/plugins?update=pending) lists them oldest first;
-- this index walks them in that order and stops at the page.
create index plugin_pending_updates_submitted on plugin_pending_updates (submitted_at, plugin_id);

-- Revisions. Counters (install clicks, the star counts kept from ratings) do not
-- count as a change: they are not what an administrator reviews, and a review would
-- otherwise be refused whenever a player installs the plugin.
create function store_next_revision() returns trigger
language plpgsql as $$
begin
  new.revision := nextval('plugin_revisions');
  return new;
end
$$;

-- What a review reads: the content, the status, featured, the submitter, the last
-- review; updated_at moves with every content change and review.
create trigger plugins_next_revision
  before update on plugins
  for each row when (
    (old.name, old.version, old.author, old.description, old.long_description, old.download, old.sha256,
     old.url, old.icon, old.tags, old.permissions, old.screenshots, old.status, old.featured, old.submitter_id,
     old.review_action, old.review_reason, old.reviewed_at, old.reviewed_by, old.updated_at)
    is distinct from
    (new.name, new.version, new.author, new.description, new.long_description, new.download, new.sha256,
     new.url, new.icon, new.tags, new.permissions, new.screenshots, new.status, new.featured, new.submitter_id,
     new.review_action, new.review_reason, new.reviewed_at, new.reviewed_by, new.updated_at))
  execute function store_next_revision();

-- Every write of a pending update (an author's edit merging into it) is a change.
create trigger plugin_pending_updates_next_revision
  before update on plugin_pending_updates
  for each row execute function store_next_revision();

-- A pending update that goes away is a change too: withdrawn with its version,
-- discarded with a rejection or an unlist, or applied by an approval. Otherwise the
-- record's revision would fall back to the plugin's own: it would move backwards,
-- or stay what an administrator had read while the update was there, and a "reject
-- the update" made on that read would be taken as a rejection of the whole plugin.
-- The plugin draws a new number in the same statement instead, so such a review is
-- refused (409) and a record's revision only ever grows.
create function store_next_revision_of_plugin() returns trigger
language plpgsql as $$
begin
  -- A plugin being deleted is gone already: the update touches no row.
  update plugins set revision = nextval('plugin_revisions') where id = old.plugin_id;
  return null;
end
$$;

create trigger plugin_pending_updates_gone_next_revision
  after delete on plugin_pending_updates
  for each row execute function store_next_revision_of_plugin();

-- A pending update exists only beside an approved plugin (docs/api.md): a plugin
-- taken down (a rejection, a report's "unlist") loses it in the same statement, so
-- no later approval can apply an update nobody reviewed.
create function store_discard_pending_update() returns trigger
language plpgsql as $$
begin
  delete from plugin_pending_updates where plugin_id = new.id;
  return null;
end
$$;

create trigger plugins_discard_pending_update
  after update of status on plugins
  for each row when (new.status <> 'approved')
  execute function store_discard_pending_update();

-- One client address counts at most once per plugin per hour: the row holds when
-- that address last counted. Rows older than an hour mean nothing and are purged.
create table plugin_install_clicks (
  plugin_id text not null references plugins (id) on delete cascade,
  client_address text not null check (char_length(client_address) between 1 and 100),
  counted_at timestamptz not null default now(),
  primary key (plugin_id, client_address)
);
create index plugin_install_clicks_counted_at on plugin_install_clicks (counted_at);

-- Install clicks per plugin per UTC day (src/services/site/stats), counted as they happen by
-- the install-click statement itself (sql/queries/store/count-install-click.sql),
-- so answering a daily series is a read of at most 365 rows by primary key, never
-- a scan of a click log.
create table plugin_install_days (
  plugin_id text not null references plugins (id) on delete cascade,
  day date not null,
  installs bigint not null check (installs >= 0),
  primary key (plugin_id, day)
);

-- The views lists and details read, plugin_records and plugin_summaries, are in
-- sql/007: they carry what the live version's package says (its size, the launcher
-- it needs, what it runs), so they come after plugin_versions.

-- How many plugins each status holds, kept by a trigger in the same transaction as
-- the change. The store front (every approved plugin, no tag) needs a total on
-- every request; counting 100,000 index entries each time would cost more than the
-- page itself. Creations and reviews queue on their status's row, which is cheap
-- since they are rare next to reads. Inserts and deletes count once per statement
-- (transition tables), so a bulk load updates each row once, not per plugin; a
-- status change is counted per row, and updates that leave the status alone
-- (install clicks, ratings) fire nothing.
create table plugin_status_counts (
  status plugin_status primary key,
  plugins bigint not null check (plugins >= 0)
);
insert into plugin_status_counts (status, plugins) values ('pending', 0), ('approved', 0), ('rejected', 0);

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
create trigger plugins_count_statuses_update
  after update of status on plugins
  for each row when (old.status is distinct from new.status)
  execute function store_count_statuses();

-- How many plugins carry each tag, per status, kept by triggers in the same
-- transaction as the change (like plugin_status_counts). A list
-- filtered by a tag needs its total on every request; a common tag is on a fifth of
-- the catalogue, and counting it meant reading 20,000 rows at 100,000 plugins
-- (228 ms, a sequential scan). The lists read one or three rows here instead.
--
-- Tags are counted in their stored lower-case form (tags_lower), the form the
-- tag filter compares. Rows that fall to zero stay (a tag may come back); there is
-- at most one row per tag ever used and status.
create table plugin_tag_counts (
  tag text not null,
  status plugin_status not null,
  plugins bigint not null check (plugins >= 0),
  primary key (tag, status)
);
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
