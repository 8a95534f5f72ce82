-- The numbers answers are kept under. Each grows with every committed change to
-- what some kept answer shows; a site process tags what it keeps with the numbers
-- it read before building it, and reuses it only while they are unchanged. They
-- change in the same transaction as the data (sql/009 says what moves each), so a
-- reader sees both or neither: no process, however many run, serves an answer
-- older than the last commit it could have seen. All four are read in one shared
-- statement (sql/queries/site/generations.sql).

-- The store's row holds three numbers, so every bump queues on one row lock at
-- commit, in whatever order a transaction queues them, and none can deadlock with
-- another:
--   generation  every change to what a visitor sees in the store's lists and
--               details, and to authors' and administrators' answers (pending
--               updates, versions): the kept answers of the store
--               (src/services/site/store/kept-answers.ts);
--   visibility  only a change to WHAT a visitor may see: a plugin added or deleted,
--               its status, `featured` or content changed, a version made live or
--               taken out of it, a rating hidden, unhidden or deleted, a reply
--               deleted. Not install counts, rating averages or new ratings, which
--               move the generation several times a second under load. While
--               PostgreSQL cannot be reached a process serves only the answers built
--               under the visibility it last read: one built before a plugin was
--               hidden, or a version removed for malware, is never served again;
--               one built before an install click is;
--   ratings     what a ratings page shows that the generation does not follow: any
--               rating or reply written, changed or deleted, and a user's name or
--               avatar (shown beside their ratings and replies). A logged-in
--               caller's ratings page is kept per user under it and the generation
--               (src/services/site/ratings/kept-pages.ts).
create table store_generation (
  only_row boolean primary key default true check (only_row),
  generation bigint not null,
  visibility bigint not null default 1,
  ratings bigint not null default 1
);
insert into store_generation (only_row, generation, visibility, ratings) values (true, 1, 1, 1);

-- Every change that can end a session or change what a session's user is: a
-- session deleted (logout, "log out everywhere", a deleted user) or changed, and a
-- user's name, avatar or administrator flag changed. Each process keeps the
-- sessions it looked up under it (src/services/site/auth/kept-sessions.ts), each until its
-- own expiry, so a logged-in request needs no query of its own and a logout on one
-- process takes effect on every other at once. Logins only add sessions, which no
-- process has kept yet: they do not move it, nor does the purge of sessions already
-- expired.
create table session_generation (
  only_row boolean primary key default true check (only_row),
  generation bigint not null
);
insert into session_generation (only_row, generation) values (true, 1);
