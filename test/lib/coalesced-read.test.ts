// lib/coalesced-read.ts: reads overlap up to a bound, callers beyond it share the
// next read, and no caller is answered by a read that started before it arrived.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { coalescedRead } from '../../src/lib/coalesced-read.js';

function controlledReads() {
  const started: Array<{ resolve: (value: number) => void; reject: (error: Error) => void }> = [];
  const read = () => new Promise<number>((resolve, reject) => started.push({ resolve, reject }));
  return { started, read };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

test('a caller arriving while one read is on its way starts a second at once: it waits one round trip, not the rest of the first and then another (update-check waves)', async () => {
  const { started, read } = controlledReads();
  const shared = coalescedRead(read);
  const early = shared();
  const late = shared();
  assert.is(started.length, 2, 'the late caller did not wait for the early read to settle');
  // The second read comes back first: the late caller is answered at once.
  started[1]!.resolve(20);
  assert.is(await late, 20);
  started[0]!.resolve(10);
  assert.is(await early, 10);
});

test('callers arriving while maxInFlight reads are on their way share the next one, started when one settles', async () => {
  const { started, read } = controlledReads();
  const shared = coalescedRead(read, { maxInFlight: 2 });
  const a = shared();
  const b = shared();
  const c = shared();
  const d = shared();
  assert.is(started.length, 2, 'the bound holds: c and d wait together');
  started[0]!.resolve(1);
  assert.is(await a, 1);
  await tick();
  assert.is(started.length, 3, 'one read for both waiting callers, started after both arrived');
  const e = shared();
  started[2]!.resolve(3);
  assert.equal(await Promise.all([c, d]), [3, 3]);
  await tick();
  assert.is(started.length, 4, 'a caller arriving during the third read does not get its value');
  started[1]!.resolve(2);
  assert.is(await b, 2);
  started[3]!.resolve(4);
  assert.is(await e, 4);
});

test('a caller is never answered by a read that started before it arrived, whatever order reads come back in', async () => {
  const { started, read } = controlledReads();
  const shared = coalescedRead(read, { maxInFlight: 1 });
  const before = shared();
  const after = shared();
  assert.is(started.length, 1, 'maxInFlight 1: the second caller waits for a read of its own');
  started[0]!.resolve(1);
  assert.is(await before, 1);
  let settled = false;
  void after.then(() => (settled = true));
  await tick();
  assert.not.ok(settled, 'the earlier read does not answer the later caller');
  assert.is(started.length, 2);
  started[1]!.resolve(2);
  assert.is(await after, 2);
});

test('a failed read fails its callers only; the waiting ones get a fresh read', async () => {
  const { started, read } = controlledReads();
  const shared = coalescedRead(read, { maxInFlight: 1 });
  const first = shared();
  const second = shared();
  started[0]!.reject(new Error('down'));
  try {
    await first;
    assert.unreachable('the first caller sees the failure');
  } catch (error) {
    assert.match((error as Error).message, /down/);
  }
  await tick();
  started[1]!.resolve(5);
  assert.is(await second, 5);
  await tick();
  const after = shared();
  assert.is(started.length, 3, 'idle again: a new caller starts its own read');
  started[2]!.resolve(6);
  assert.is(await after, 6);
});

test('a read that throws at once fails its callers and frees its place', async () => {
  let calls = 0;
  const shared = coalescedRead(() => {
    calls++;
    if (calls === 1) throw new Error('no connection');
    return Promise.resolve(calls);
  }, { maxInFlight: 1 });
  try {
    await shared();
    assert.unreachable('the caller sees the failure');
  } catch (error) {
    assert.match((error as Error).message, /no connection/);
  }
  await tick();
  assert.is(await shared(), 2, 'the place it held is free again');
});

test.run();
