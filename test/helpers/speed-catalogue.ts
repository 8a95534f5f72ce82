// A catalogue of many approved plugins of one local account, made in one statement:
// what the store pages are tried against at scale (the browser test and
// scripts/bench-pages.ts).
import type { Sql } from '../../src/db/pool.js';
import { createLocalAccount } from '../../src/services/site/auth/local-accounts.js';

export async function seedSpeedCatalogue(sql: Sql, plugins: number, owner = { username: 'keeper', password: 'correct horse battery' }): Promise<void> {
  await createLocalAccount(sql, owner);
  const [row] = await sql<Array<{ id: string }>>`select id::text from users where username = ${owner.username}`;
  // One statement for all rows and their triggers: past the pool's 4 s statement
  // timeout on a busy machine, so this seeding transaction lifts it.
  await sql.begin(async (tx) => {
    await tx`set local statement_timeout = 0`;
    await tx`insert into plugins (id, submitter_id, name, version, author, description, download, tags, status, install_count)
              select 'speed-' || n, ${row!.id}, 'Speed plugin ' || n, '1.' || (n % 10), 'Author ' || (n % 97),
                     'Plugin number ' || n || ' for the speed test', 'https://github.com/speed/' || n || '.zip',
                     array['tag' || (n % 20), 'speed'], 'approved', n % 1000
                from generate_series(1, ${plugins}) as n`;
  });
}
