-- The watch's turn: one process at a time arms the schedule (schedule.sql), held
-- until its transaction ends; false when another process has it.
-- params: none
-- not null: taken
select pg_try_advisory_xact_lock(286, 1) as taken
