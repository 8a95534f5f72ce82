-- Marks every unread notification of user $1 read; the unread count after is 0
-- unless one arrived meanwhile (read from this statement's snapshot, less those marked).
-- params: $1 user_id
-- not null: unread
with marked as (
  update notifications set read_at = now()
   where user_id = $1 and read_at is null
  returning id
)
select (select count(*) from notifications where user_id = $1 and read_at is null)
     - (select count(*) from marked) as unread
