-- The update check (POST /apps/api/updates), in one round trip: for each asked id
-- ($1, with position), the approved plugin of that id (any case) and, when its live
-- version is a hosted one, that version's size and changelog. No plugin: not one a
-- visitor may see (unknown). Each lookup is one probe of plugins_id_lower and of
-- the versions' primary key.
select asked.n::int as n, p.id, p.version, p.sha256, p.download, v.size::text as size, v.changelog
  from unnest($1::text[]) with ordinality as asked (id, n)
  left join plugins p on lower(p.id) = lower(asked.id) and p.status = 'approved'
  left join plugin_versions v on v.plugin_id = p.id and v.version = p.version and v.sha256 = p.sha256 and v.status = 'approved'
 order by asked.n
