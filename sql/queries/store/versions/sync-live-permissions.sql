-- Approved plugin $1 (locked) serves a hosted version whose manifest was read: its
-- `permissions` become that manifest's, whatever its author typed, since the
-- launcher grants what the package declares (issue 31). A plugin serving an outside
-- link, or a version from before manifests were read, keeps its own.
-- params: $1 plugin_id
update plugins p
   set permissions = array(select item.value
                             from jsonb_array_elements_text(v.manifest -> 'permissions') with ordinality as item (value, n)
                            order by item.n)
  from plugin_versions v
 where p.id = $1 and p.status = 'approved'
   and v.plugin_id = p.id and v.version = p.version and v.download = p.download and v.sha256 = p.sha256
   and v.status = 'approved' and v.manifest is not null
   and p.permissions is distinct from array(select item.value
                                              from jsonb_array_elements_text(v.manifest -> 'permissions') with ordinality as item (value, n)
                                             order by item.n)
