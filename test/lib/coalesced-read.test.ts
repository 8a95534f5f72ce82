// lib/coalesced-read.ts: callers arriving together share one read, and no caller is
// answered by a read that started before it arrived.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { coalescedRead } from '../../src/lib/coalesced-read.js';

function controlledReads() {
  const started: Array<{ resolve: (value: number) => void; reject: (error: Error) => void }> = [];
  const read = () => new Promise<number>((resolve, reject) => started.push({ resolve, reject }));
  return { started, read };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

test('callers arriving while a read runs share the next one, started after they arrived', async () => {
  const { started, read } = controlledReads();
  const shared = coalescedRead(read);
  const first = shared();
  const second = shared();
  const third = shared();
  assert.is(started.length, 1, 'the second and third wait: the running read began before them');
  started[0]!.resolve(10);
  assert.is(await first, 10);
  await tick();
  assert.is(started.length, 2, 'one more read serves both');
  const fourth = shared();
  started[1]!.resolve(20);
  assert.is(await second, 20);
  assert.is(await third, 20);
  await tick();
  started[2]!.resolve(30);
  assert.is(await fourth, 30, 'a caller arriving during the second read waits for a third');
});

test('a failed read fails its callers only; the queued ones get a fresh read', async () => {
  const { started, read } = controlledReads();
  const shared = coalescedRead(read);
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

test.run();
