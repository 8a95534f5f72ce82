-- Whether an administrator removed the bytes $1 (lock-bytes-shared.sql held).
-- params: $1 sha256
-- not null: removed
select exists (select 1 from removed_packages where sha256 = $1) as removed
