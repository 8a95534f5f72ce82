-- Not a migration: run once, by the carry-over of a database migrated by the
-- second pre-release chain (sql/001..007 and sql/100..283, src/db/pre-release-chain.ts),
-- in the transaction that records it as the released files. Those files moved the
-- four numbers of sql/008_generations.sql with four functions of one body each
-- (sql/007, 231, 240, 280); the released schema has one, bump_generation, made with
-- every trigger that calls it by sql/009_generation_bumps.sql, which runs last.
-- Everything else the released files make, such a database has already or gets
-- from the files appended to the pre-release fold (sql/carry-over/284..287)
-- (scripts/check-folded-schema.ts).
--
-- The triggers are named one by one and the functions dropped without CASCADE: a
-- trigger of a later migration calling an old function makes the carry-over fail
-- and roll back whole, instead of vanishing.

drop trigger plugins_bump_generation on plugins;
drop trigger plugins_truncate_bumps_generation on plugins;
drop trigger plugin_pending_updates_bump_generation on plugin_pending_updates;
drop trigger plugin_pending_updates_truncate_bumps_generation on plugin_pending_updates;
drop trigger plugin_versions_bump_generation on plugin_versions;
drop trigger plugin_versions_truncate_bumps_generation on plugin_versions;
drop trigger users_bump_generation on users;

drop trigger plugins_bump_visibility_rows on plugins;
drop trigger plugins_bump_visibility_status on plugins;
drop trigger plugins_bump_visibility_content on plugins;
drop trigger plugin_versions_bump_visibility_insert on plugin_versions;
drop trigger plugin_versions_bump_visibility_status on plugin_versions;
drop trigger plugin_versions_bump_visibility_delete on plugin_versions;
drop trigger plugin_ratings_bump_visibility_hidden on plugin_ratings;
drop trigger plugin_ratings_bump_visibility_delete on plugin_ratings;
drop trigger plugin_rating_replies_bump_visibility_delete on plugin_rating_replies;
drop trigger plugins_truncate_bumps_visibility on plugins;
drop trigger plugin_versions_truncate_bumps_visibility on plugin_versions;
drop trigger plugin_ratings_truncate_bumps_visibility on plugin_ratings;
drop trigger plugin_rating_replies_truncate_bumps_visibility on plugin_rating_replies;

drop trigger plugin_ratings_bump_ratings on plugin_ratings;
drop trigger plugin_rating_replies_bump_ratings on plugin_rating_replies;
drop trigger users_bump_ratings on users;
drop trigger plugin_ratings_truncate_bumps_ratings on plugin_ratings;
drop trigger plugin_rating_replies_truncate_bumps_ratings on plugin_rating_replies;

drop trigger sessions_delete_bumps_session_generation on sessions;
drop trigger sessions_update_bumps_session_generation on sessions;
drop trigger users_bump_session_generation on users;
drop trigger sessions_truncate_bumps_session_generation on sessions;

drop function store_bump_generation(), store_bump_visibility(), store_bump_ratings(), session_bump_generation();

-- The appended files run next, and sql/carry-over/286 makes a trigger that calls
-- bump_generation: this stand-in lets it be made. sql/carry-over/stand-in-bump.sql
-- drops both before sql/009 makes the real function and every trigger, that one too.
create function bump_generation() returns trigger
language plpgsql as $$
begin
  return null;
end
$$;
