-- Locks plugin $1 (case-insensitive id) for an edit or a review in this transaction:
-- concurrent edits and reviews of one plugin take turns.
select p.id, p.status, p.submitter_id::text as submitter_id,
       exists (select 1 from plugin_pending_updates where plugin_id = p.id) as has_pending_update
  from plugins p
 where lower(p.id) = lower($1)
   for update of p
