-- The update check (POST /apps/api/updates), in one round trip: for each asked id
-- ($1, with position), the approved plugin of that id (any case) and the version it
-- offers: its live version (with, when hosted, that version's size and changelog);
-- but to a launcher of version $2 (null: any) that the live version's manifest says
-- is too old (min_launcher_version, compared by launcher_version_key, sql/007), the
-- newest approved version it can run, if any (version null then). No plugin: not
-- one a visitor may see (unknown). Each lookup is one probe of plugins_id_lower and
-- of the versions' primary key; only a live version too new for $2 costs a walk of
-- the plugin's approved versions, newest first (plugin_versions_newest).
-- params: $1 ids, $2 launcher
-- Each asked id's ordinality.
-- not null: n
select asked.n::int as n, p.id, offer.version, offer.sha256, offer.download, offer.size::text as size, offer.changelog
  from unnest($1::text[]) with ordinality as asked (id, n)
  left join plugins p on lower(p.id) = lower(asked.id) and p.status = 'approved'
  left join plugin_versions v on v.plugin_id = p.id and v.version = p.version and v.sha256 = p.sha256 and v.status = 'approved'
  left join lateral (
    (select p.version, p.sha256, p.download, v.size, v.changelog
      where $2::text is null or v.manifest ->> 'min_launcher_version' is null
         or launcher_version_key(v.manifest ->> 'min_launcher_version') <= launcher_version_key($2::text))
    union all
    (select older.version, older.sha256, older.download, older.size, older.changelog
       from plugin_versions older
      where older.plugin_id = p.id and older.status = 'approved' and older.created_at < v.created_at
        and (older.manifest ->> 'min_launcher_version' is null
             or launcher_version_key(older.manifest ->> 'min_launcher_version') <= launcher_version_key($2::text))
      order by older.created_at desc
      limit 1)
    limit 1
  ) as offer on p.id is not null
 order by asked.n
