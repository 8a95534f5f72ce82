// The logger's lines: the request log's time, formatted from performance.now()
// with the second's text made once (lib/log.ts), must read as the wall clock does.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogger, isoAt } from '../../src/lib/log.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

test('isoAt: a performance.now() reading as the wall clock\'s ISO time, to the millisecond', async () => {
  for (let i = 0; i < 50; i++) {
    const before = Date.now();
    const text = isoAt(performance.now());
    const after = Date.now();
    assert.match(text, ISO);
    const at = Date.parse(text);
    // The offset between the clocks is read off Date.now() (whole milliseconds, so it
    // errs by up to one) and followed only when it moves by 2 ms or more (lib/log.ts:
    // re-adopting every rounding would make times jitter): a line may read up to 3 ms
    // behind or 2 ahead. A loaded machine's clocks drift that much (a full run failed
    // at -3 with a tolerance of 2).
    assert.ok(at >= before - 4 && at <= after + 3, `${text} not within ${new Date(before).toISOString()}..${new Date(after).toISOString()}`);
    await new Promise((resolve) => setTimeout(resolve, i % 10 === 0 ? 37 : 1));
  }
});

test('isoAt: the milliseconds of one second, and the next second', () => {
  // Readings within one second share the clocks' offset, so they are exact to the
  // millisecond. A new second may read the offset again (lib/log.ts), and on a clock
  // that drifts (seen under Node 24 on this machine) it may have moved by a few ms:
  // across seconds the check allows that much.
  const now = performance.now();
  const start = now - (Date.parse(isoAt(now)) % 1000) + 100; // about 100 ms into a second
  const first = Date.parse(isoAt(start));
  assert.is(Date.parse(isoAt(start + 1)) - first, 1);
  assert.is(Date.parse(isoAt(start + 800)) - first, 800);
  for (const step of [1000, 2500]) {
    const later = Date.parse(isoAt(start + step));
    assert.ok(Math.abs(later - first - step) <= 5, `${step}: ${later - first}`);
    assert.is(Date.parse(isoAt(start + step + 1)) - later, 1, `${step} + 1`);
  }
});

const fillStatus = (target: Buffer, at: number, status: number): number => at + target.write(`"status":${status},"path":"/中文"}\n`, at);

test('lineWriter: one JSON line with the time, level, fixed fields, message and the members the filler writes', () => {
  const lines: string[] = [];
  const write = createLogger({ service: 'site' }, { write: (line) => void lines.push(line) }).lineWriter('info', 'request')!;
  write(fillStatus, 200, 64, performance.now());
  write(fillStatus, 404, 64, performance.now());
  assert.is(lines.length, 2);
  assert.ok(lines[0]!.endsWith('}\n'));
  const entry = JSON.parse(lines[0]!);
  assert.equal(Object.keys(entry), ['time', 'level', 'service', 'msg', 'status', 'path']);
  assert.match(entry.time, ISO);
  assert.ok(Math.abs(Date.parse(entry.time) - Date.now()) < 50);
  assert.is(entry.status, 200);
  assert.is(entry.path, '/中文');
  assert.is(JSON.parse(lines[1]!).status, 404);
});

test('lineWriter: a line of another millisecond carries its own time', () => {
  const lines: string[] = [];
  const write = createLogger({}, { write: (line) => void lines.push(line) }).lineWriter('info', 'request')!;
  const now = performance.now();
  write(fillStatus, 200, 64, now);
  write(fillStatus, 200, 64, now + 1);
  write(fillStatus, 200, 64, now + 2500);
  const times = lines.map((line) => Date.parse(JSON.parse(line).time));
  assert.is(times[1]! - times[0]!, 1);
  assert.is(times[2]! - times[0]!, 2500);
});

test('lineWriter: none for a level below the logger\'s', () => {
  assert.is(createLogger({}, { level: 'warn', write: () => {} }).lineWriter('info', 'request'), undefined);
});

test.run();
