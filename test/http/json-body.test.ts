// Which Content-Type values a JSON body route takes, and which bytes it parses (http/json-body.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HttpError } from '../../src/http/errors.js';
import { isJsonType, parseJsonBytes } from '../../src/http/json-body.js';

const cases: Array<{ what: string; type: string | undefined; json: boolean }> = [
  { what: 'plain JSON', type: 'application/json', json: true },
  { what: 'JSON with the charset browsers send', type: 'application/json; charset=utf-8', json: true },
  { what: 'another case and spacing', type: 'Application/JSON ;charset=UTF-8', json: true },
  { what: 'a +json type', type: 'application/vnd.launcher+json', json: true },
  { what: 'text', type: 'text/plain', json: false },
  { what: 'a form', type: 'application/x-www-form-urlencoded', json: false },
  { what: 'json under another top type', type: 'text/json', json: false },
  { what: 'none', type: undefined, json: false },
  { what: 'empty', type: '', json: false },
];
for (const c of cases) {
  test(`isJsonType: ${c.what}`, () => {
    assert.is(isJsonType(c.type), c.json);
  });
}

test('parseJsonBytes: bytes that are not UTF-8 are 400, never stored as U+FFFD', () => {
  for (const bytes of [[0x22, 0x41, 0xff, 0xfe, 0x42, 0x22], [0x22, 0xed, 0xa0, 0x80, 0x22], [0x22, 0xc3, 0x22]]) {
    const error = (() => {
      try {
        parseJsonBytes(Buffer.from(bytes));
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    assert.instance(error, HttpError, `bytes ${bytes}`);
    assert.equal([(error as HttpError).status, (error as HttpError).code, (error as HttpError).message], [400, 'BAD_REQUEST', 'Request body is not valid UTF-8']);
  }
  assert.equal(parseJsonBytes(Buffer.from('{"name":"小地图 🗺"}')), { name: '小地图 🗺' });
});

test.run();
