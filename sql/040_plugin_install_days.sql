-- Install clicks per plugin per UTC day (src/site/stats), counted as they happen by
-- the install-click statement itself (sql/queries/store/count-install-click.sql),
-- so answering a daily series is a read of at most 365 rows by primary key, never
-- a scan of a click log. Days before this migration have no rows: plugins'
-- install_count kept totals only.
create table plugin_install_days (
  plugin_id text not null references plugins (id) on delete cascade,
  day date not null,
  installs bigint not null check (installs >= 0),
  primary key (plugin_id, day)
);
