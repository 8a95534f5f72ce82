// The plain reference of a POST benchmark (bench-updates.ts): node:http reading the
// whole request body, then answering the status, headers and body one of our
// answers had, the plainest way (one header object made at start-up,
// `res.writeHead(status, headers); res.end(body)`), as plain.ts does for GETs. It
// tells what the load generator and the machine allow: a latency our server shows
// and this one shows too is not ours.
//
//   node .test-build/scripts/bench/plain-post.js <answer.json> <port>

import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { HEADERS_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from '../../src/http/server.js';

const [specPath, portText] = process.argv.slice(2);
const spec = JSON.parse(readFileSync(specPath!, 'utf8')) as { status: number; headers: Array<[string, string]>; body: string; requestId?: string };
const body = Buffer.from(spec.body, 'base64');
const headers: Record<string, string | number> = Object.fromEntries(spec.headers);
headers['X-Request-Id'] = spec.requestId ?? '0123456789abcdef-1';
headers['Content-Length'] = body.length;

const server = createServer(
  { headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS },
  (req, res) => {
    // The body is read whole, as ours reads it before answering.
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      res.writeHead(spec.status, headers);
      res.end(body);
    });
  },
);
server.listen(Number(portText), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
