-- A pending update that goes away is a change to what a review reads: withdrawn
-- with its version, discarded with a rejection or an unlist, or applied by an
-- approval. Until now the record's revision, the larger of the plugin's and its
-- pending update's (100_plugin_revisions.sql), fell back to the plugin's own when the
-- update was deleted: the number moved backwards, or stayed what an administrator
-- had read while the update was there, so a "reject the update" made on that read
-- was taken as a rejection of the whole plugin. The plugin now draws a new number
-- in the same statement, so such a review is refused (409) and a record's revision
-- only ever grows.
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
