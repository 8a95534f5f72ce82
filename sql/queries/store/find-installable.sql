-- What the install link and manifest need of approved plugin $1 (case-insensitive id).
-- params: $1 plugin_id
-- The plugin's own columns, beside its outer-joined submitter.
-- not null: id, name, version, author, description, permissions, download
select p.id, p.name, p.version, p.author, p.description, p.permissions, p.download, p.sha256, u.username as submitter
  from plugins p
  left join users u on u.id = p.submitter_id
 where lower(p.id) = lower($1) and p.status = 'approved'
