-- Not a migration: run once, by the carry-over of a database migrated by the
-- pre-release fold and the files appended to it (src/db/pre-release-chain.ts). The
-- first text of sql/286_package_checks.sql named its three constraint triggers
-- *_package_check; the one it was changed to names them *_align_package_check, to
-- fire before each table's *_bump_generation (sql/007 says why). A database that
-- ran the first text gets the new names here, on the trigger and on its constraint
-- (ALTER TRIGGER renames only the trigger); one that ran the second has nothing to
-- rename.

do $$
begin
  if exists (select 1 from pg_trigger where tgrelid = 'plugins'::regclass and tgname = 'plugins_package_check') then
    alter trigger plugins_package_check on plugins rename to plugins_align_package_check;
    alter table plugins rename constraint plugins_package_check to plugins_align_package_check;
  end if;
  if exists (select 1 from pg_trigger where tgrelid = 'plugin_pending_updates'::regclass and tgname = 'plugin_pending_updates_package_check') then
    alter trigger plugin_pending_updates_package_check on plugin_pending_updates rename to plugin_pending_updates_align_package_check;
    alter table plugin_pending_updates rename constraint plugin_pending_updates_package_check to plugin_pending_updates_align_package_check;
  end if;
  if exists (select 1 from pg_trigger where tgrelid = 'plugin_versions'::regclass and tgname = 'plugin_versions_package_check') then
    alter trigger plugin_versions_package_check on plugin_versions rename to plugin_versions_align_package_check;
    alter table plugin_versions rename constraint plugin_versions_package_check to plugin_versions_align_package_check;
  end if;
end
$$;
