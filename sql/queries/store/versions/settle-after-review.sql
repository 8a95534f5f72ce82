-- After a review of plugin $1 (in its transaction, the plugin locked): pending
-- versions are decided by what is now live. On $2 = 'approve', the version whose
-- number, file and hash the plugin now carries (approved plugins only) is approved;
-- every other pending version was superseded, or refused, and is rejected. A rejected
-- version the approval made live again (the same bytes) is approved too: what is live
-- is always an approved version.
-- params: $1 plugin_id, $2 action
update plugin_versions v
   set status = case when $2 = 'approve' and p.status = 'approved'
                          and v.version = p.version and v.sha256 = p.sha256 and v.download = p.download
                     then 'approved' else 'rejected' end,
       reviewed_at = now()
  from plugins p
 where p.id = $1 and v.plugin_id = p.id
   and (v.status = 'pending'
        or (v.status = 'rejected' and $2 = 'approve' and p.status = 'approved'
            and v.version = p.version and v.sha256 = p.sha256 and v.download = p.download))
