// ACE labels checked by decoding them (RFC 3492) and encoding again (UTS #46), so a
// webhook host is judged the same whatever Node's URL parser lets through (Node 24's
// keeps `xn--a`, which Node 20 and 22 refuse: it decodes to U+0080).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodePunycode, isValidAceLabel } from '../../src/lib/punycode-label.js';

// RFC 3492 section 7.1's samples (A: Arabic, B: Chinese) and two common names.
const decoded: Array<[string, string]> = [
  ['egbpdaj6bu4bxfgehfvwxn', '\u0644\u064A\u0647\u0645\u0627\u0628\u062A\u0643\u0644\u0645\u0648\u0634\u0639\u0631\u0628\u064A\u061F'],
  ['ihqwcrb4cv8a8dqg056pqjye', '\u4ED6\u4EEC\u4E3A\u4EC0\u4E48\u4E0D\u8BF4\u4E2D\u6587'],
  ['bcher-kva', 'bücher'],
  ['fiqs8s', '中国'],
];
for (const [input, output] of decoded) {
  test(`decodePunycode: ${input}`, () => assert.is(decodePunycode(input), output));
}

test('decodePunycode: not punycode is null', () => {
  for (const input of ['zz', '!', 'abc-é', 'a'.repeat(3) + '-' + '9'.repeat(40)]) assert.is(decodePunycode(input), null, input);
});

test('isValidAceLabel: what an encoder writes passes, anything else is refused', () => {
  for (const label of ['example', 'xn--bcher-kva', 'XN--BCHER-KVA', 'xn--fiqs8s']) assert.ok(isValidAceLabel(label), label);
  for (const label of ['xn--a', 'xn--', 'xn--zz', 'xn--bcher-kv']) assert.not.ok(isValidAceLabel(label), label);
});

test.run();
