-- The hash of what approved plugin $1 now serves (in an approval's transaction), if known.
select sha256 from plugins where id = $1 and status = 'approved' and sha256 is not null
