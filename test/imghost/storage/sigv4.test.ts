// The request signer against AWS's published SigV4 test suite (test/fixtures/sigv4,
// origin in its README): each step is compared on its own, so a failure says
// which one went wrong.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { amzDateOf, sha256Hex, sign, uriEncode } from '../../../src/services/imghost/storage/sigv4.js';

const DIR = fileURLToPath(new URL('../../../../test/fixtures/sigv4/', import.meta.url));
const CREDENTIALS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };

const read = (name: string) => readFileSync(DIR + name, 'utf8');

/** `METHOD target HTTP/1.1`, `Name:value` lines, a blank line, the body. */
function parseRequest(text: string) {
  const [head, ...rest] = text.split('\n\n');
  const [requestLine, ...headerLines] = head!.split('\n');
  const match = /^(\S+) (.+) HTTP\/1\.1$/.exec(requestLine!)!;
  const [rawPath, rawQuery] = match[2]!.split('?') as [string, string | undefined];
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon)] = line.slice(colon + 1);
  }
  const query = rawQuery === undefined ? [] : rawQuery.split('&').map((pair) => {
    const [name, value = ''] = pair.split('=');
    return [name!, value] as [string, string];
  });
  return { method: match[1]!, path: uriEncode(rawPath, true), query, headers, body: rest.join('\n\n') };
}

const cases = readdirSync(DIR).filter((name) => name.endsWith('.req')).map((name) => name.slice(0, -4)).sort();

const Signer = suite('sigv4 signer');

Signer('the fixture holds the cases it says', () => {
  assert.is(cases.length, 10);
});

for (const what of cases) {
  Signer(`${what}: canonical request, string to sign, Authorization`, () => {
    const request = parseRequest(read(`${what}.req`));
    const signed = sign({
      ...request,
      payloadHash: sha256Hex(request.body),
      region: 'us-east-1',
      service: 'service',
      amzDate: request.headers['X-Amz-Date']!,
      credentials: CREDENTIALS,
    });
    assert.is(signed.canonicalRequest, read(`${what}.creq`));
    assert.is(signed.stringToSign, read(`${what}.sts`));
    assert.is(signed.authorization, read(`${what}.authz`));
  });
}

Signer('amzDateOf drops separators and milliseconds', () => {
  assert.is(amzDateOf(new Date('2015-08-30T12:36:00.123Z')), '20150830T123600Z');
});

Signer('uriEncode keeps unreserved characters, encodes the rest as upper-case UTF-8', () => {
  for (const [input, keepSlash, expected, what] of [
    ['a-b_c.d~e', false, 'a-b_c.d~e', 'unreserved'],
    ['a b/c', false, 'a%20b%2Fc', 'space and slash'],
    ['a b/c', true, 'a%20b/c', 'slash kept in a path'],
    ['ሴ', false, '%E1%88%B4', 'UTF-8'],
  ] as const) {
    assert.is(uriEncode(input, keepSlash), expected, what);
  }
});

Signer.run();
