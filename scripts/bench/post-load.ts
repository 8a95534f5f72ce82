// One autocannon run of POST requests with a JSON body, each request from its own
// client address (X-Forwarded-For, for a server with TRUST_PROXY=true), so a
// per-address rate limit measures the route, not the limiter's 429. Run pinned to
// the load core by its caller; prints autocannon's result as JSON on stdout, with
// `loadCpuUs`, this process's own CPU time over the run.
//
//   node post-load.js <url> <body file> <connections> <seconds> [<Accept-Encoding> [<requests/s>]]
//
// With a rate, the load is that many requests a second over all connections (not
// as many as the server takes): two builds compared at the same rate batch the
// same number of requests per turn of the event loop, so their CPU per answer
// compares even on a machine others are using.
//
// The load generator is single-threaded JS on one core, and with 12 KB bodies it
// was the limit (26 Nov 2026: 143 µs of its CPU per request, its core 100% busy
// against a plain node:http server, whose p99 was 26 ms at 50 connections). So it
// does per request only what the measurement needs (history of docs/benchmarks.md):
// - Each connection's request is built once, with a placeholder address; before
//   each request the connection writes the next address into its own buffer,
//   padded with spaces (trimmed by every HTTP parser: header values end at
//   optional whitespace), instead of autocannon rebuilding the whole request
//   (headers and the 12 KB body copied) through setupRequest, 25 µs a request.
//   A connection sends its next request only once the last one is answered, so
//   its buffer is never changed while a write of it is under way.
// - The answers' bodies are not kept: autocannon appends every body chunk to a
//   string (for verifyBody/expectBody/onResponse, none used here), decoding the
//   gzip bytes as UTF-8 (29 µs a request). Bytes, status codes and latencies are
//   counted as before.
// Both reach into autocannon 9's internals (Client.getRequestBuffer, the request
// iterator's built buffer, PipelinedRequestsQueue.addBody), checked at start.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
// autocannon ships no type declarations; its options are documented in its README.
const autocannon = require('autocannon') as (options: Record<string, unknown>) => Promise<unknown>;
const queue = require('autocannon/lib/pipelinedRequestsQueue.js') as { prototype: { addBody?: unknown } };
if (typeof queue.prototype.addBody !== 'function') throw new Error('autocannon changed: PipelinedRequestsQueue.addBody is gone; see the note above');
queue.prototype.addBody = () => {};

const [url, bodyFile, connections, seconds, acceptEncoding = '', rate = ''] = process.argv.slice(2);
const body = readFileSync(bodyFile!);
/** The widest dotted address: each request's address is written over it, padded with spaces. */
const PLACEHOLDER = '255.255.255.255';
let address = 0;
const nextAddress = () => {
  address = (address + 1) % 16_000_000;
  return `10.${(address >> 16) & 255}.${(address >> 8) & 255}.${address & 255}`;
};

interface Client {
  getRequestBuffer?: () => Buffer;
  requestIterator?: { currentRequest?: { requestBuffer?: Buffer } };
}

/** Each connection sends its own built request, with the next address written in before each send. */
function addressPerRequest(client: Client): void {
  const built = client.requestIterator?.currentRequest?.requestBuffer;
  if (typeof client.getRequestBuffer !== 'function' || !Buffer.isBuffer(built)) throw new Error('autocannon changed: no built request to reuse; see the note above');
  const request = Buffer.from(built);
  const at = request.indexOf(`x-forwarded-for: ${PLACEHOLDER}\r\n`, 0, 'latin1') + 'x-forwarded-for: '.length;
  if (at < 'x-forwarded-for: '.length) throw new Error('the built request has no address placeholder');
  client.getRequestBuffer = () => {
    const written = request.write(nextAddress(), at, 'latin1');
    request.fill(0x20, at + written, at + PLACEHOLDER.length);
    return request;
  };
}

const cpuBefore = process.cpuUsage();
const result = await autocannon({
  url: url!,
  connections: Number(connections),
  duration: Number(seconds),
  ...(rate === '' ? {} : { overallRate: Number(rate) }),
  requests: [
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(acceptEncoding === '' ? {} : { 'accept-encoding': acceptEncoding }), 'x-forwarded-for': PLACEHOLDER },
      body,
    },
  ],
  setupClient: addressPerRequest,
});
// Its own CPU time (user + system, µs) over the run: how much of the load core the load generator itself used.
const used = process.cpuUsage(cpuBefore);
process.stdout.write(JSON.stringify({ ...(result as object), loadCpuUs: used.user + used.system }));
