-- Whether plugin $1 (its exact id) ever had version $2, in any status: a number is never reused.
select exists (select 1 from plugin_versions where plugin_id = $1 and version = $2) as taken
