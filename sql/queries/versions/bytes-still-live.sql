-- Whether another live version (any plugin) than version $2 of plugin $1 has the file $3.
select exists (
  select 1 from plugin_versions
   where sha256 = $3 and status = 'approved' and not (plugin_id = $1 and version = $2)
) as live
