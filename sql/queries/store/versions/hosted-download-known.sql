-- Whether $2 may be plugin $1's download although it is on the image host: it is
-- already the plugin's download, or the file of one of its versions the site read
-- and checked (pending or approved). Any other package there (one whose upload
-- was refused, say) was never this plugin's, so it is not taken as an outside link.
-- params: $1 plugin_id, $2 download
select exists (select 1 from plugins where lower(id) = lower($1::text) and download = $2::text)
    or exists (select 1 from plugin_versions v
                 join plugins p on p.id = v.plugin_id
                where lower(p.id) = lower($1::text) and v.download = $2::text and v.status in ('pending', 'approved')) as known
