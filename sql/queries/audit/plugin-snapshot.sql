-- The audited fields of plugin $1 (its exact id), in API names, for an audit
-- entry's before/after; read under the row lock of the action's transaction.
-- params: $1 plugin_id
-- not null: fields
select jsonb_build_object(
         'name', p.name, 'version', p.version, 'author', p.author, 'description', p.description,
         'longDescription', p.long_description, 'download', p.download, 'sha256', p.sha256, 'url', p.url,
         'icon', p.icon, 'tags', p.tags, 'permissions', p.permissions, 'screenshots', p.screenshots,
         'featured', p.featured, 'status', p.status, 'reviewAction', p.review_action, 'reviewReason', p.review_reason,
         'pendingUpdate', exists (select 1 from plugin_pending_updates u where u.plugin_id = p.id)
       )::text as fields
  from plugins p
 where p.id = $1
