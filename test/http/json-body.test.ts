// Which Content-Type values a JSON body route takes (http/json-body.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isJsonType } from '../../src/http/json-body.js';

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

test.run();
