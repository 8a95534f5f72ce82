// The reference of the HTTP benchmarks: plain node:http answering every request with
// the status, headers and body one of our answers had (read from a JSON file made by
// harness.ts), a fresh request id per answer made as ours are, and the same server
// timeouts as ours. Nothing else in the way: no routing, no log. With `file` in the
// JSON the body is that file, piped with createReadStream per request (the
// reference for files served from disk).
//
//   node .test-build/scripts/bench/bare.js <answer.json> <port>

import { createReadStream, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { nextRequestId } from '../../src/http/request-id.js';
import { HEADERS_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from '../../src/http/server.js';

const [specPath, portText] = process.argv.slice(2);
const spec = JSON.parse(readFileSync(specPath!, 'utf8')) as { status: number; headers: Array<[string, string]>; body: string; file?: string };
const body = Buffer.from(spec.body, 'base64');
const headers: Record<string, string | number> = Object.fromEntries(spec.headers);
if (spec.status !== 304) headers['Content-Length'] = spec.file === undefined ? body.length : statSync(spec.file).size;

const server = createServer(
  { headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS },
  (_req, res) => {
    res.writeHead(spec.status, { ...headers, 'X-Request-Id': nextRequestId() });
    if (spec.file !== undefined) createReadStream(spec.file).pipe(res);
    else res.end(spec.status === 304 ? undefined : body);
  },
);
server.listen(Number(portText), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
