-- The plugin store: plugins, the pending update of an approved plugin, the last
-- review, install counts and the click de-duplication. Ratings and replies are in
-- 011. Every plugin field rule (docs/api.md, "Plugin store") is also a constraint here, so no
-- code path can store what the API would refuse (the API checks first, to name the
-- offending field; these are the net). Only PostgreSQL 15 features.
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
-- https, a host without user or password, a path ending in .zip (any case).
create domain plugin_download as text
  check (char_length(value) <= 2048
         and value ~ '^https://[^/?#@[:space:]]+/[^?#[:space:]]*\.[zZ][iI][pP]([?#][^[:space:]]*)?$');
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

-- Screenshots: at most 8, each a link string or {url, webpUrl?} of links.
create function store_link_ok(value jsonb) returns boolean
language sql immutable parallel safe as $$
  select coalesce(jsonb_typeof(value) = 'string'
                  and char_length(value #>> '{}') <= 2048
                  and (value #>> '{}') ~ '^(https://[^[:space:]]+|/([^/\\[:space:]][^[:space:]]*)?)$', false)
$$;
create function store_screenshots_ok(items jsonb) returns boolean
language sql immutable parallel safe as $$
  select jsonb_typeof(items) = 'array'
     and jsonb_array_length(items) <= 8
     and not exists (
       select 1 from jsonb_array_elements(items) as shot
        where not (
          store_link_ok(shot)
          or (jsonb_typeof(shot) = 'object'
              and (shot - 'url' - 'webpUrl') = '{}'::jsonb
              and store_link_ok(shot -> 'url')
              and (not shot ? 'webpUrl' or store_link_ok(shot -> 'webpUrl')))))
$$;
create domain plugin_screenshots as jsonb
  check (store_screenshots_ok(value));

-- Search keys. lower() and these helpers are immutable, so they can feed generated
-- columns and expression indexes.
create function store_lower_tags(tags text[]) returns text[]
language sql immutable parallel safe as $$
  select coalesce(array_agg(lower(tag) order by ordinality), '{}') from unnest(tags) with ordinality as tag
$$;
create function store_join_words(words text[]) returns text
language sql immutable parallel safe as $$
  select coalesce(string_agg(word, ' ' order by ordinality), '') from unnest(words) with ordinality as word
$$;
-- "Mini-Map 2" -> "minimap2": how people type a name without its spaces and dashes.
create function store_compact(value text) returns text
language sql immutable parallel safe as $$
  select regexp_replace(lower(value), '[^[:alnum:]]+', '', 'g')
$$;

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
  -- Star distribution, kept by the trigger on plugin_ratings (011) in the rating's
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
  -- For search: everything q looks at, lower-cased, and the compact id and name.
  search_text text generated always as (
    lower(id || ' ' || name || ' ' || author || ' ' || store_join_words(tags) || ' ' || description)) stored,
  search_key text generated always as (store_compact(id) || ' ' || store_compact(name)) stored,
  check ((review_action is null) = (reviewed_at is null))
);

-- Ids are unique case-insensitively, and looked up that way.
create unique index plugins_id_lower on plugins (lower(id));
-- Behind every list order, with the status filter most lists carry in front.
create index plugins_status_updated on plugins (status, updated_at desc, id);
create index plugins_status_installs on plugins (status, install_count desc, id);
create index plugins_status_rating on plugins (status, rating_score desc, id);
create index plugins_submitter_updated on plugins (submitter_id, updated_at desc, id);
create index plugins_featured_updated on plugins (updated_at desc, id) where featured;
create index plugins_tags on plugins using gin (store_lower_tags(tags));
create index plugins_search_text on plugins using gin (search_text gin_trgm_ops);
create index plugins_search_key on plugins using gin (search_key gin_trgm_ops);

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

-- One client address counts at most once per plugin per hour: the row holds when
-- that address last counted. Rows older than an hour mean nothing and are purged.
create table plugin_install_clicks (
  plugin_id text not null references plugins (id) on delete cascade,
  client_address text not null check (char_length(client_address) between 1 and 100),
  counted_at timestamptz not null default now(),
  primary key (plugin_id, client_address)
);
create index plugin_install_clicks_counted_at on plugin_install_clicks (counted_at);

-- A plugin as the API shows it: the live record with its submitter's name, its
-- pending update and its last reviewer. Both joins are left joins on unique keys,
-- so a query that reads neither (a count) does not pay for them.
create view plugin_records as
select p.id, p.submitter_id, submitter.username as submitter, p.name, p.version, p.author, p.description,
       p.long_description, p.download, p.sha256, p.url, p.icon, p.tags, p.permissions, p.screenshots,
       p.status, p.featured, p.install_count, p.rating_count, p.rating_sum, p.rating_score,
       p.stars_1, p.stars_2, p.stars_3, p.stars_4, p.stars_5,
       p.review_action, p.review_reason, p.reviewed_at, p.created_at, p.updated_at,
       pending.changed as pending_changed, pending.name as pending_name, pending.version as pending_version,
       pending.author as pending_author, pending.description as pending_description,
       pending.long_description as pending_long_description, pending.download as pending_download,
       pending.sha256 as pending_sha256, pending.url as pending_url, pending.icon as pending_icon,
       pending.tags as pending_tags, pending.permissions as pending_permissions,
       pending.screenshots as pending_screenshots, pending.submitted_at as pending_submitted_at
  from plugins p
  left join users submitter on submitter.id = p.submitter_id
  left join plugin_pending_updates pending on pending.plugin_id = p.id;
