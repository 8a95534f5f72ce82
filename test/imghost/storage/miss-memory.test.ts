// Unknown hashes are remembered missing a few seconds, so asking again costs the
// bucket nothing; an upload of that hash on this process is seen at once.
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { silentLogger } from '../../../src/lib/log.js';
import { openBucketImageStore } from '../../../src/services/imghost/images/bucket-store.js';
import { FORMAT_LIST } from '../../../src/services/imghost/images/formats.js';
import { openPackageBucketStore } from '../../../src/services/imghost/packages/package-bucket-store.js';
import { createMissMemory } from '../../../src/services/imghost/storage/miss-memory.js';
import type { ObjectStorage } from '../../../src/services/imghost/storage/object-storage.js';
import { makePng } from '../../fixtures/images/generate.js';
import { tempDir } from '../../helpers/servers.js';
import { manualClock } from '../../helpers/time.js';

const Misses = suite('bucket misses remembered');

/** A bucket in memory that counts HEADs; no cache. */
function countingStorage() {
  const objects = new Map<string, number>();
  let heads = 0;
  const storage = {
    key: (name: string) => name,
    publicUrl: () => undefined,
    cache: { lookup: () => null, forget: () => {}, admits: () => false, adopt: async () => false, sizeOf: () => undefined },
    client: {
      head: async (key: string) => {
        heads++;
        const size = objects.get(key);
        return size === undefined ? null : { size, meta: {} };
      },
      put: async (key: string, _file: unknown, size: number) => {
        if (objects.has(key)) return 'exists';
        objects.set(key, size);
        return 'stored';
      },
      delete: async (key: string) => void objects.delete(key),
    },
  } as unknown as ObjectStorage;
  return { storage, heads: () => heads };
}

Misses('unknown md5 HEAD per format each time: an image miss is remembered, an upload clears it at once', async () => {
  const { storage, heads } = countingStorage();
  const store = await openBucketImageStore(tempDir('lw-miss-img-'), storage, silentLogger);
  const png = await makePng(7);
  const md5 = createHash('md5').update(png).digest('hex');
  assert.is(await store.findOriginal(md5), null);
  assert.is(heads(), FORMAT_LIST.length);
  assert.is(await store.findOriginal(md5), null);
  assert.is(heads(), FORMAT_LIST.length, 'the second lookup asked the bucket again');
  const temp = store.temps.create('png');
  await writeFile(temp, png);
  await store.commitOriginal(temp, md5, 'png', png.length);
  assert.is((await store.findOriginal(md5))?.key, md5);
  await store.close();
});

Misses('unknown package two HEADs each time: a package miss is remembered, an upload clears it at once', async () => {
  const { storage, heads } = countingStorage();
  const dir = tempDir('lw-miss-pkg-');
  const store = await openPackageBucketStore(dir, storage, silentLogger);
  const sha = 'ab'.repeat(32);
  assert.is(await store.open(sha), null);
  assert.is(heads(), 2);
  assert.is(await store.open(sha), null);
  assert.is(await store.find(sha), null);
  assert.is(heads(), 2, 'later lookups asked the bucket again');
  const temp = join(dir, 'upload.zip');
  await writeFile(temp, 'zip bytes');
  await store.commit(temp, sha);
  assert.is((await store.find(sha)) !== null && (await store.find(sha)) !== 'removed', true);
  await store.close();
});

Misses('a miss is believed only briefly, and not when an upload ran during its lookup', () => {
  const clock = manualClock();
  const misses = createMissMemory({ ms: 50, now: clock.now });
  misses.remember('a', misses.epoch);
  clock.advance(49);
  assert.ok(misses.has('a'));
  clock.advance(1);
  assert.not.ok(misses.has('a'));
  const epoch = misses.epoch;
  misses.clear('b');
  misses.remember('b', epoch);
  assert.not.ok(misses.has('b'), 'a lookup that raced an upload is not remembered');
});

Misses.run();
