// What the image proxy's answers hold (src/services/site/images/proxy-holds.ts): places per
// client address, and one budget of bytes that stalled sends give up to new answers.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createProxyHolds, STALLED_AFTER_MS } from '../../../src/services/site/images/proxy-holds.js';

function clock() {
  let now = 0;
  return { now: () => now, pass: (ms: number) => (now += ms) };
}

test('an address gets perAddress places; a place left is free again; other addresses are counted apart', () => {
  const holds = createProxyHolds({ perAddress: 2, bufferBytes: 100 });
  const rows = [
    { what: 'first', address: 'a', entered: true },
    { what: 'second', address: 'a', entered: true },
    { what: 'third of one address', address: 'a', entered: false },
    { what: 'another address', address: 'b', entered: true },
  ];
  for (const row of rows) assert.is(holds.enter(row.address), row.entered, row.what);
  holds.leave('a');
  assert.is(holds.enter('a'), true, 'after one left');
  assert.is(holds.enter('a'), false, 'full again');
});

test('bytes are held from the reservation until sent or released; release is idempotent', () => {
  const holds = createProxyHolds({ perAddress: 8, bufferBytes: 100 });
  const held = holds.reserve(60)!;
  assert.ok(held);
  assert.is(holds.reserve(50), undefined, 'over the budget, nothing stalled');
  held.sent(25);
  assert.is(holds.heldBytes(), 35);
  held.release();
  held.release();
  held.sent(10);
  assert.is(holds.heldBytes(), 0);
});

test('a new answer takes the bytes of sends stalled longest first, cutting them, and only as many as it needs', () => {
  const time = clock();
  const holds = createProxyHolds({ perAddress: 8, bufferBytes: 100 }, time.now);
  const cuts: string[] = [];
  const older = holds.reserve(40)!;
  older.sending(() => cuts.push('older'));
  time.pass(100);
  const newer = holds.reserve(40)!;
  newer.sending(() => cuts.push('newer'));
  const rows = [
    { what: 'nothing stalled yet', after: STALLED_AFTER_MS - 200, bytes: 30, granted: false, cuts: [] as string[] },
    { what: 'the older one stalled: it alone is cut', after: 150, bytes: 30, granted: true, cuts: ['older'] },
  ];
  for (const row of rows) {
    time.pass(row.after);
    assert.is(holds.reserve(row.bytes) !== undefined, row.granted, row.what);
    assert.equal(cuts, row.cuts, row.what);
  }
  assert.is(holds.heldBytes(), 70);
});

test('a send that progresses is not stalled; one not yet sending is never cut', () => {
  const time = clock();
  const holds = createProxyHolds({ perAddress: 8, bufferBytes: 100 }, time.now);
  const reading = holds.reserve(50)!;
  const sending = holds.reserve(50)!;
  let cut = false;
  sending.sending(() => (cut = true));
  time.pass(STALLED_AFTER_MS - 1);
  sending.sent(1);
  time.pass(STALLED_AFTER_MS - 1);
  assert.is(holds.reserve(10), undefined);
  assert.is(cut, false);
  time.pass(10_000);
  assert.ok(holds.reserve(10));
  assert.is(cut, true);
  assert.ok(reading);
});

test.run();
