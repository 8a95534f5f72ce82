import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { closeTestSql, startTestImghost, startTestSite } from './helpers/servers.js';

test('both services answer /healthz and /readyz', async () => {
  const site = await startTestSite();
  const imghost = await startTestImghost();
  try {
    for (const base of [site.url, imghost.url]) {
      assert.is((await fetch(base + '/healthz')).status, 200);
      assert.is((await fetch(base + '/readyz')).status, 200);
    }
  } finally {
    await site.close();
    await imghost.close();
    await closeTestSql();
  }
});

test.run();
