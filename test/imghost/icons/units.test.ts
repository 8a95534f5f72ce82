// The icon service's pure parts, table-driven: colour and query parsing, icon names,
// the recolouring template, the LRU, the render queue, Accept-Encoding.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { HttpError } from '../../../src/http/errors.js';
import { parseColor } from '../../../src/services/imghost/icons/color.js';
import { CSS_COLOR_NAMES } from '../../../src/services/imghost/icons/css-colors.js';
import { iconFileCandidates, isIconFileName } from '../../../src/services/imghost/icons/icon-name.js';
import { parseIconQuery } from '../../../src/services/imghost/icons/icon-query.js';
import { createLru } from '../../../src/lib/lru.js';
import { compileSvgTemplate, IconFormatError, renderSvg } from '../../../src/services/imghost/icons/svg-template.js';
import { createTaskQueue, QueueFullError } from '../../../src/lib/task-queue.js';

const colors = suite('parseColor');

colors('knows the CSS Color 4 named colours and transparent', () => {
  assert.is(CSS_COLOR_NAMES.size, 149);
  for (const name of ['rebeccapurple', 'lightgoldenrodyellow', 'grey', 'gray', 'transparent']) assert.ok(CSS_COLOR_NAMES.has(name), name);
});

const colorCases: Array<{ what: string; input: string; expected: string | null }> = [
  { what: 'a name', input: 'red', expected: 'red' },
  { what: 'a name in any case', input: 'RebeccaPurple', expected: 'rebeccapurple' },
  { what: 'transparent', input: 'transparent', expected: 'transparent' },
  { what: '#rgb', input: '#F0a', expected: '#f0a' },
  { what: '#rgba', input: '#f0a8', expected: '#f0a8' },
  { what: '#rrggbb', input: '#FF0000', expected: '#ff0000' },
  { what: '#rrggbbaa', input: '#ff000080', expected: '#ff000080' },
  { what: 'bare hex of 3', input: 'abc', expected: '#abc' },
  { what: 'bare hex of 4', input: 'abcd', expected: '#abcd' },
  { what: 'bare hex of 6', input: '123456', expected: '#123456' },
  { what: 'bare hex of 8', input: '12345678', expected: '#12345678' },
  { what: 'a bare hex word that is no colour name', input: 'bad', expected: '#bad' },
  { what: 'hex of 2', input: '#12', expected: null },
  { what: 'hex of 5', input: '#12345', expected: null },
  { what: 'hex of 7', input: '1234567', expected: null },
  { what: 'hex of 9', input: '#123456789', expected: null },
  { what: 'non-hex digits', input: '#ggg', expected: null },
  { what: 'two hashes', input: '##fff', expected: null },
  { what: 'rgb()', input: 'rgb(1,2,3)', expected: null },
  { what: 'markup injection', input: 'red"/><script>alert(1)</script>', expected: null },
  { what: 'url()', input: 'url(javascript:x)', expected: null },
  { what: 'a CSS declaration', input: 'red;background:url(x)', expected: null },
  { what: 'surrounding space', input: ' red', expected: null },
  { what: 'currentColor', input: 'currentColor', expected: null },
  { what: 'a system colour', input: 'canvastext', expected: null },
  { what: 'an unknown word', input: 'reddish', expected: null },
  { what: 'empty', input: '', expected: null },
  { what: 'very long', input: 'a'.repeat(10_000), expected: null },
];

for (const { what, input, expected } of colorCases) {
  colors(`parseColor: ${what}`, () => assert.is(parseColor(input), expected));
}

const query = suite('parseIconQuery');

const queryCases: Array<{ what: string; query: string; expected?: ReturnType<typeof parseIconQuery>; error?: { status: number; message: RegExp } }> = [
  { what: 'defaults: black SVG', query: '', expected: { color: 'black', format: 'svg', size: 0 } },
  { what: 'empty color means the default', query: 'color=', expected: { color: 'black', format: 'svg', size: 0 } },
  { what: 'a %23 hex colour', query: 'color=%23ABC', expected: { color: '#abc', format: 'svg', size: 0 } },
  { what: 'png=true has the default size', query: 'png=true', expected: { color: 'black', format: 'png', size: 128 } },
  { what: 'png=1 with a size', query: 'png=1&size=16', expected: { color: 'black', format: 'png', size: 16 } },
  { what: 'png=TRUE in upper case', query: 'png=TRUE&size=1024', expected: { color: 'black', format: 'png', size: 1024 } },
  { what: 'png=false is SVG', query: 'png=false', expected: { color: 'black', format: 'svg', size: 0 } },
  { what: 'png=0 is SVG', query: 'png=0&color=red', expected: { color: 'red', format: 'svg', size: 0 } },
  { what: 'a size with SVG is checked but unused', query: 'size=64', expected: { color: 'black', format: 'svg', size: 0 } },
  { what: 'an invalid colour', query: 'color=red%22', error: { status: 400, message: /^Invalid color$/ } },
  { what: 'two colours', query: 'color=red&color=blue', error: { status: 400, message: /^Invalid color$/ } },
  { what: 'png=yes', query: 'png=yes', error: { status: 400, message: /^Invalid png/ } },
  { what: 'size below 16', query: 'png=true&size=15', error: { status: 400, message: /^Invalid size/ } },
  { what: 'size above 1024', query: 'png=true&size=1025', error: { status: 400, message: /^Invalid size/ } },
  { what: 'size zero', query: 'png=true&size=0', error: { status: 400, message: /^Invalid size/ } },
  { what: 'fractional size', query: 'png=true&size=12.5', error: { status: 400, message: /^Invalid size/ } },
  { what: 'negative size', query: 'png=true&size=-20', error: { status: 400, message: /^Invalid size/ } },
  { what: 'exponent size', query: 'png=true&size=1e3', error: { status: 400, message: /^Invalid size/ } },
  { what: 'hex size', query: 'png=true&size=0x20', error: { status: 400, message: /^Invalid size/ } },
  { what: 'a huge size', query: 'png=true&size=99999999999999999999', error: { status: 400, message: /^Invalid size/ } },
];

for (const { what, query: text, expected, error } of queryCases) {
  query(`parseIconQuery: ${what}`, () => {
    if (expected) {
      assert.equal(parseIconQuery(new URLSearchParams(text)), expected);
      return;
    }
    try {
      parseIconQuery(new URLSearchParams(text));
      assert.unreachable('should have thrown');
    } catch (thrown) {
      assert.instance(thrown, HttpError);
      const httpError = thrown as HttpError;
      assert.is(httpError.status, error!.status);
      assert.ok(httpError.plain, 'answered as plain text');
      assert.match(httpError.message, error!.message);
    }
  });
}

const names = suite('icon names');

const candidateCases: Array<{ what: string; name: string; expected: string[] }> = [
  { what: 'a bare name gets .svg', name: 'home', expected: ['home.svg'] },
  { what: 'a .svg name is itself first', name: 'home.svg', expected: ['home.svg', 'home.svg.svg'] },
  { what: 'dots, dashes, underscores', name: 'a.b_c-d', expected: ['a.b_c-d.svg'] },
  { what: 'a slash', name: '../etc/passwd', expected: [] },
  { what: 'a backslash', name: '..\\..\\windows', expected: [] },
  { what: 'NUL', name: 'home\u0000', expected: [] },
  { what: 'a space', name: 'home icon', expected: [] },
  { what: 'non-ASCII', name: 'hömé', expected: [] },
  { what: 'empty', name: '', expected: [] },
  { what: 'over the length limit', name: 'a'.repeat(129), expected: [] },
];

for (const { what, name, expected } of candidateCases) {
  names(`iconFileCandidates: ${what}`, () => assert.equal(iconFileCandidates(name), expected));
}

names('isIconFileName accepts only the safe alphabet with .svg', () => {
  assert.ok(isIconFileName('home.svg'));
  assert.ok(isIconFileName('a_b-c.1.svg'));
  assert.not.ok(isIconFileName('home.SVG'));
  assert.not.ok(isIconFileName('home.png'));
  assert.not.ok(isIconFileName('bad name.svg'));
  assert.not.ok(isIconFileName('a'.repeat(200) + '.svg'));
});

const templates = suite('svg template');

const templateCases: Array<{ what: string; source: string; color: string; expected: string }> = [
  {
    what: 'Tabler outline: currentColor stroke takes the colour, fill="none" stays',
    source: '<svg xmlns="http://www.w3.org/2000/svg" fill="none" stroke="currentColor"><path stroke="none" fill="none" d="M0 0"/><path d="M1 1"/></svg>',
    color: 'red',
    expected: '<svg color="red" xmlns="http://www.w3.org/2000/svg" fill="none" stroke="red"><path stroke="none" fill="none" d="M0 0"/><path d="M1 1"/></svg>',
  },
  {
    what: 'Tabler filled: fill="currentColor" on the root',
    source: '<svg fill="currentColor"><path d="M1 1"/></svg>',
    color: '#123456',
    expected: '<svg color="#123456" fill="#123456"><path d="M1 1"/></svg>',
  },
  {
    what: 'an icon relying on the default black fill gets a root fill',
    source: '<svg viewBox="0 0 1 1"><rect width="1" height="1"/></svg>',
    color: 'blue',
    expected: '<svg color="blue" fill="blue" viewBox="0 0 1 1"><rect width="1" height="1"/></svg>',
  },
  {
    what: 'explicit fill and stroke colours are replaced, none and url() are kept',
    source: "<svg fill='none'><path fill='#333' stroke=\"rgb(1,2,3)\"/><path fill=\"url(#g)\"/><path fill=\" NONE \"/><path stroke=\"transparent\"/></svg>",
    color: 'lime',
    expected: "<svg color=\"lime\" fill='none'><path fill='lime' stroke=\"lime\"/><path fill=\"url(#g)\"/><path fill=\" NONE \"/><path stroke=\"transparent\"/></svg>",
  },
  {
    what: 'an existing root color attribute is replaced, not duplicated',
    source: '<svg color="#000" fill="none"><path stroke="currentColor"/></svg>',
    color: 'red',
    expected: '<svg color="red" fill="none"><path stroke="red"/></svg>',
  },
  {
    what: 'currentColor in style attributes and <style> (any case)',
    source: '<svg fill="none"><style>.a{stroke:CURRENTCOLOR}</style><path style="fill: currentcolor"/></svg>',
    color: 'red',
    expected: '<svg color="red" fill="none"><style>.a{stroke:red}</style><path style="fill: red"/></svg>',
  },
  {
    what: 'prolog, comments and DOCTYPE with an internal subset are skipped',
    source: '\ufeff<?xml version="1.0"?>\n<!-- <svg fill="x"> -->\n<!DOCTYPE svg [ <!ENTITY a "b>"> ]>\n<svg><!-- <path fill="#111"/> --><path/></svg>',
    color: 'red',
    expected: '\ufeff<?xml version="1.0"?>\n<!-- <svg fill="x"> -->\n<!DOCTYPE svg [ <!ENTITY a "b>"> ]>\n<svg color="red" fill="red"><!-- <path fill="#111"/> --><path/></svg>',
  },
  {
    what: 'an unquoted value is quoted',
    source: '<svg fill=none><path fill=#333 /></svg>',
    color: 'red',
    expected: '<svg color="red" fill=none><path fill="red" /></svg>',
  },
  {
    what: 'attribute values holding > do not end the tag',
    source: '<svg data-x="a>b" fill="none"><path stroke="#000"/></svg>',
    color: 'red',
    expected: '<svg color="red" data-x="a>b" fill="none"><path stroke="red"/></svg>',
  },
  {
    what: 'stop-color is left alone',
    source: '<svg fill="none"><stop stop-color="#fff"/></svg>',
    color: 'red',
    expected: '<svg color="red" fill="none"><stop stop-color="#fff"/></svg>',
  },
];

for (const { what, source, color, expected } of templateCases) {
  templates(`compileSvgTemplate: ${what}`, () => assert.is(renderSvg(compileSvgTemplate(source), color), expected));
}

templates('compileSvgTemplate: the colour is the only inserted text, whatever the colour string is', () => {
  const template = compileSvgTemplate('<svg fill="none" stroke="currentColor"><path/></svg>');
  assert.is(template.join(''), '<svg color="" fill="none" stroke=""><path/></svg>');
});

const notSvg: Array<{ what: string; source: string }> = [
  { what: 'plain text', source: 'hello' },
  { what: 'HTML', source: '<html><svg></svg></html>' },
  { what: 'an <svgx> element', source: '<svgx></svgx>' },
  { what: 'a NUL character', source: '<svg>\u0000</svg>' },
  { what: 'empty', source: '' },
];
for (const { what, source } of notSvg) {
  templates(`compileSvgTemplate refuses ${what}`, () => {
    assert.throws(() => compileSvgTemplate(source), (error: unknown) => error instanceof IconFormatError);
  });
}

templates('compileSvgTemplate: a cut-off document still compiles (sharp decides later)', () => {
  assert.is(renderSvg(compileSvgTemplate('<svg><path fill="#000'), 'red'), '<svg color="red" fill="red"><path fill="red');
});

/** The fastest of three runs of `work`, in ms: the least disturbed by a busy machine. */
function fastest(work: () => void): number {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    work();
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

// Linear, not quadratic: four times the input takes about four times as long (16
// for quadratic work). A ratio of the same machine's timings, not a wall-clock
// limit, so a loaded test machine does not fail it.
templates('compileSvgTemplate: pathological input stays linear', () => {
  const pathological = (n: number) => () => {
    compileSvgTemplate('<svg ' + 'a'.repeat(n) + ' ' + '<'.repeat(n));
    compileSvgTemplate('<svg><p ' + 'x= '.repeat(n / 2));
  };
  const small = fastest(pathological(50_000));
  const large = fastest(pathological(200_000));
  assert.ok(large < 8 * Math.max(small, 1), `4x the input took ${(large / small).toFixed(1)}x as long (${small.toFixed(1)} ms, ${large.toFixed(1)} ms)`);
});

const lru = suite('lru');

lru('evicts the least recently used entry by count', () => {
  const cache = createLru<string>({ maxEntries: 2, maxBytes: 1000 });
  cache.set('a', 'A', 1);
  cache.set('b', 'B', 1);
  assert.is(cache.get('a'), 'A');
  cache.set('c', 'C', 1);
  assert.is(cache.get('b'), undefined);
  assert.is(cache.get('a'), 'A');
  assert.is(cache.get('c'), 'C');
});

lru('evicts by bytes and never keeps an entry larger than the bound', () => {
  const cache = createLru<string>({ maxEntries: 100, maxBytes: 10 });
  cache.set('a', 'A', 6);
  cache.set('b', 'B', 6);
  assert.is(cache.get('a'), undefined);
  assert.is(cache.bytes, 6);
  cache.set('huge', 'H', 11);
  assert.is(cache.get('huge'), undefined);
  assert.is(cache.get('b'), 'B');
  cache.set('b', 'B2', 2);
  assert.is(cache.bytes, 2);
  cache.clear();
  assert.is(cache.size, 0);
  assert.is(cache.bytes, 0);
});

const queue = suite('task queue');

queue('runs at most `concurrency` tasks and refuses beyond maxWaiting', async () => {
  const tasks = createTaskQueue({ concurrency: 2, maxWaiting: 1 });
  let active = 0;
  let peak = 0;
  const gates: Array<() => void> = [];
  const task = () =>
    new Promise<number>((resolve) => {
      active++;
      peak = Math.max(peak, active);
      gates.push(() => {
        active--;
        resolve(peak);
      });
    });
  const first = tasks.run(task);
  const second = tasks.run(task);
  const third = tasks.run(task);
  let refused = false;
  await tasks.run(task).catch((error) => (refused = error instanceof QueueFullError));
  assert.ok(refused, 'fourth task refused');
  assert.is(tasks.waiting, 1);
  while (gates.length) {
    gates.shift()!();
    await new Promise((resolve) => setImmediate(resolve));
  }
  await Promise.all([first, second, third]);
  assert.is(peak, 2);
  assert.is(tasks.running, 0);
});

queue('a task that throws synchronously gives its slot back', async () => {
  const tasks = createTaskQueue({ concurrency: 1, maxWaiting: 0 });
  await tasks.run(() => {
    throw new Error('boom');
  }).catch(() => {});
  assert.is(tasks.running, 0);
  assert.is(await tasks.run(async () => 7), 7);
});

colors.run();
query.run();
names.run();
templates.run();
lru.run();
queue.run();
