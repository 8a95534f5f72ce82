// The plain reference of the HTTP benchmarks: node:http answering every request with
// the status, headers and body one of our answers had, written the plainest way a
// server can (`res.writeHead(status, headers); res.end(body)`) with one header
// object made at start-up: no per-request object, not even a fresh request id (the
// id of the captured answer is repeated). This is what a hand-written server costs;
// bare.ts, which spreads a new header object with a fresh id per answer, reads a few
// µs a request slower. With `file` in the JSON the body is that file, piped with
// createReadStream per request.
//
//   node .test-build/scripts/bench/plain.js <answer.json> <port>

import { createReadStream, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { HEADERS_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from '../../src/http/server.js';

const [specPath, portText] = process.argv.slice(2);
const spec = JSON.parse(readFileSync(specPath!, 'utf8')) as {
  status: number;
  headers: Array<[string, string]>;
  body: string;
  file?: string;
  requestId?: string;
};
const status = spec.status;
const body = Buffer.from(spec.body, 'base64');
const headers: Record<string, string | number> = Object.fromEntries(spec.headers);
headers['X-Request-Id'] = spec.requestId ?? '0123456789abcdef-1';
if (status !== 304) headers['Content-Length'] = spec.file === undefined ? body.length : statSync(spec.file).size;
const file = spec.file;

const server = createServer(
  { headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS },
  file !== undefined
    ? (_req, res) => {
        res.writeHead(status, headers);
        createReadStream(file).pipe(res);
      }
    : status === 304
      ? (_req, res) => {
          res.writeHead(status, headers);
          res.end();
        }
      : (_req, res) => {
          res.writeHead(status, headers);
          res.end(body);
        },
);
server.listen(Number(portText), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
