-- The review queue of pending updates (GET /apps/api/plugins?update=pending) lists
-- them oldest first; this index walks them in that order and stops at the page.
create index plugin_pending_updates_submitted on plugin_pending_updates (submitted_at, plugin_id);
