-- Click rows over an hour old de-duplicate nothing; delete up to $1 of them and say
-- how many went.
-- params: $1 batch
-- not null: deleted
with deleted as (
  delete from plugin_install_clicks
   where ctid = any (array(
     select ctid from plugin_install_clicks
      where counted_at < now() - interval '1 hour'
      limit $1))
  returning 1
)
select count(*)::integer as deleted from deleted
