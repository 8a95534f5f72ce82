-- Serializes token creation per user (inside a transaction, before count-live),
-- so two concurrent creations cannot both pass the live-token limit. The count is
-- a statement of its own: one run after the lock sees what the other committed.
-- params: $1 user_id
select id from users where id = $1 for update
