-- What waits for an administrator, by kind, in one round trip (the review page's
-- tabs): plugins pending review (plugin_status_counts, kept by triggers), pending
-- updates of approved plugins (as list-pending-updates counts them:
-- plugin_pending_updates_submitted, one row per update), and open reports (an
-- index-only count of reports_queue).
-- params: none
-- plugin_status_counts holds a row per status from sql/002_plugins.sql on.
-- not null: pending, updates, reports
select (select c.plugins from plugin_status_counts c where c.status = 'pending')::integer as pending,
       (select count(*) from plugin_pending_updates u join plugins p on p.id = u.plugin_id
         where p.status = 'approved')::integer as updates,
       (select count(*) from reports r where r.status = 'open')::integer as reports
