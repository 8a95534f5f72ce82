-- The store's generation (sql/050) also moves with every committed change to a
-- pending update. Visitors never see pending updates, but authors and
-- administrators do (a record's `pendingUpdate` and `revision`, the review queue),
-- and their answers are now kept per store generation too
-- (src/site/store/kept-answers.ts): an author's edit of an approved plugin writes
-- only plugin_pending_updates, and must show in the very next answer of its author
-- and of every administrator, in every site process. Visitors' kept answers are
-- rebuilt after such an edit as well; edits are rare beside install clicks, which
-- already move the generation.
create constraint trigger plugin_pending_updates_bump_generation
  after insert or update or delete on plugin_pending_updates
  deferrable initially deferred
  for each row execute function store_bump_generation();

create trigger plugin_pending_updates_truncate_bumps_generation
  after truncate on plugin_pending_updates
  for each statement execute function store_bump_generation();
