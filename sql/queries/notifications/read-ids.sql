-- Marks user $1's notifications $2 (bigint[]) read (others' ids are ignored) and
-- answers the unread count after: the count before (this statement's snapshot)
-- less those marked now.
-- params: $1 user_id, $2 ids
-- not null: unread
with marked as (
  update notifications set read_at = now()
   where user_id = $1 and id = any($2::bigint[]) and read_at is null
  returning id
)
select (select count(*) from notifications where user_id = $1 and read_at is null)
     - (select count(*) from marked) as unread
