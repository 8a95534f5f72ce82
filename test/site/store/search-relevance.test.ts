// Search relevance: queries people type (exact, prefix, typo, two words, tag word,
// author) over a fixed catalogue of 320 plugins, each with the first result they
// expect, as on Modrinth or Open VSX.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { closeTestSql, startTestSite, testSql, type TestServer } from '../../helpers/servers.js';
import { seedCatalogue } from '../../fixtures/store/catalogue.js';
import { storeClient, type StoreClient } from './store-client.js';

let site: TestServer;
let client: StoreClient;

test.before(async () => {
  const sql = testSql();
  const [{ id }] = await sql`insert into users (username) values ('catalogue') returning id::text`;
  await seedCatalogue(sql, id);
  site = await startTestSite();
  client = storeClient(site.url);
});
test.after(async () => {
  await site.close();
  await closeTestSql();
});

const expectations: Array<{ what: string; q: string; first: string }> = [
  { what: 'exact id', q: 'minimap', first: 'minimap' },
  { what: 'exact name in another case', q: 'MiniMap', first: 'minimap' },
  { what: 'typo: a letter missing', q: 'minimp', first: 'minimap' },
  { what: 'typo: another letter missing', q: 'minmap', first: 'minimap' },
  { what: 'two words for one', q: 'mini map', first: 'minimap' },
  { what: 'hyphenated words for one', q: 'mini-map', first: 'minimap' },
  { what: 'two words of a name', q: 'world map', first: 'world-map' },
  { what: 'a name without its space', q: 'worldmap', first: 'world-map' },
  { what: 'name prefix', q: 'map', first: 'map-tools' },
  { what: 'name prefix, one word', q: 'shader', first: 'shader-pack' },
  { what: 'tag word', q: 'shaders', first: 'shader-pack' },
  { what: 'typo in the first of two words', q: 'shadr pack', first: 'shader-pack' },
  { what: 'exact name of two words', q: 'better chat', first: 'better-chat' },
  { what: 'a name starting with the word beats a name containing it', q: 'chat', first: 'chat-filter' },
  { what: 'prefix of a long word', q: 'invent', first: 'inventory-sorter' },
  { what: 'typo: letters swapped at the end', q: 'inventroy', first: 'inventory-sorter' },
  { what: 'tag word of a two-word name', q: 'backup', first: 'auto-backup' },
  { what: 'author name', q: 'saver team', first: 'auto-backup' },
  { what: 'author name, one word, other case', q: 'CARTOGRAPHER', first: 'minimap' },
  { what: 'tag only', q: 'cosmetics', first: 'skin-changer' },
  { what: 'short name prefix', q: 'fps', first: 'fps-booster' },
  { what: 'typo in the second word', q: 'fps boster', first: 'fps-booster' },
  { what: 'name prefix beats a tag', q: 'performance', first: 'performance-monitor' },
  { what: 'prefix of the name', q: 'discord', first: 'discord-presence' },
  { what: 'inner words of a name', q: 'rich presence', first: 'discord-presence' },
  { what: 'first word of a name', q: 'screenshot', first: 'screenshot-helper' },
  { what: 'first two words of three', q: 'server list', first: 'server-list-plus' },
  { what: 'two-word name', q: 'mod manager', first: 'mod-manager' },
  { what: 'compact two-word name', q: 'voicechat', first: 'voice-chat' },
  { what: 'exact id in upper case', q: 'FPS-BOOSTER', first: 'fps-booster' },
  { what: 'an exact name beats a more popular prefix match', q: 'zoom', first: 'zoom' },
  { what: 'a longer prefix picks the longer name', q: 'zoomi', first: 'zoomify' },
  { what: 'a later word of the name', q: 'sorter', first: 'inventory-sorter' },
  { what: 'typo in a one-word name', q: 'waypionts', first: 'waypoints' },
  { what: 'description words only', q: 'spyglass', first: 'zoom' },
  { what: 'two words of a name in the other order', q: 'player music', first: 'music-player' },
  { what: 'the last words of a name without their space', q: 'listplus', first: 'server-list-plus' },
  { what: 'a typo in one word and a prefix of the other', q: 'musc play', first: 'music-player' },
];

for (const { what, q, first } of expectations) {
  test(`q=${q} (${what}) finds ${first} first`, async () => {
    const answer = await client.get(`/apps/api/plugins?q=${encodeURIComponent(q)}&limit=5`);
    assert.is(answer.status, 200);
    const ids = answer.body.plugins.map((plugin: { id: string }) => plugin.id);
    assert.is(ids[0], first, `got ${ids.join(', ')}`);
    assert.ok(answer.body.total >= 1);
  });
}

test('a query that matches nothing returns an empty list, not everything', async () => {
  for (const q of ['zzzzqqqqxxxx', 'quantumflux', '!!!']) {
    const answer = await client.get(`/apps/api/plugins?q=${encodeURIComponent(q)}`);
    assert.is(answer.status, 200);
    assert.equal(answer.body.plugins, [], q);
    assert.is(answer.body.total, 0, q);
  }
});

test('description matches rank below name and tag matches', async () => {
  const answer = await client.get('/apps/api/plugins?q=minimap&limit=50');
  const ids: string[] = answer.body.plugins.map((plugin: { id: string }) => plugin.id);
  assert.is(ids[0], 'minimap');
  const fillers = ids.filter((id) => id.startsWith('filler-'));
  assert.ok(fillers.length > 0, 'fillers whose description mentions a minimap overlay are found too');
});

test('an explicit sort orders the matches by what it names', async () => {
  const answer = await client.get('/apps/api/plugins?q=zoom&sort=installs');
  const ids = answer.body.plugins.map((plugin: { id: string }) => plugin.id);
  assert.equal(ids.slice(0, 2), ['zoomify', 'zoom']);
});

test('search with a tag filter, limit and offset: the total counts every match', async () => {
  const all = await client.get('/apps/api/plugins?q=map&limit=500');
  const page = await client.get('/apps/api/plugins?q=map&limit=2&offset=1');
  assert.is(page.body.total, all.body.total);
  assert.equal(page.body.plugins.map((p: { id: string }) => p.id), all.body.plugins.slice(1, 3).map((p: { id: string }) => p.id));
  const tagged = await client.get('/apps/api/plugins?q=map&tag=NAVIGATION');
  assert.equal(tagged.body.plugins.map((p: { id: string }) => p.id), ['waypoints']);
});

test.run();
