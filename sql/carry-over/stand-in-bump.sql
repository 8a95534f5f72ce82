-- Not a migration: run by the carry-over of a database of the second pre-release
-- chain (src/db/pre-release-chain.ts) after the files appended to the pre-release
-- fold (sql/carry-over/284..287), just before sql/009_generation_bumps.sql. It
-- drops the stand-in of old-generation-bumps.sql and the one trigger made on it;
-- sql/009 makes the real function and that trigger again. Without CASCADE: any
-- other trigger on the stand-in makes the carry-over fail and roll back whole.

drop trigger plugin_package_checks_bump_generation on plugin_package_checks;
drop function bump_generation();
