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
// does per request only what the measurement needs (docs/benchmarks.md):
// - The body is a Buffer: the request is rebuilt per request for its address
//   (autocannon's setupRequest), and a string body was encoded to UTF-8 each time
//   (21 µs a request).
// - The address is set on the headers autocannon copied for this request, not on
//   a new copy of them.
// - The answers' bodies are not kept: autocannon appends every body chunk to a
//   string (for verifyBody/expectBody/onResponse, none used here), decoding the
//   gzip bytes as UTF-8 (29 µs a request). Bytes, status codes and latencies are
//   counted as before.
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
let address = 0;
const nextAddress = () => {
  address = (address + 1) % 16_000_000;
  return `10.${(address >> 16) & 255}.${(address >> 8) & 255}.${address & 255}`;
};

const cpuBefore = process.cpuUsage();
const result = await autocannon({
  url: url!,
  connections: Number(connections),
  duration: Number(seconds),
  ...(rate === '' ? {} : { overallRate: Number(rate) }),
  requests: [
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(acceptEncoding === '' ? {} : { 'accept-encoding': acceptEncoding }) },
      body,
      // autocannon hands over a request object and headers it has just copied for this request.
      setupRequest: (request: { headers: Record<string, string> }) => {
        request.headers['x-forwarded-for'] = nextAddress();
        return request;
      },
    },
  ],
});
// Its own CPU time (user + system, µs) over the run: how much of the load core the load generator itself used.
const used = process.cpuUsage(cpuBefore);
process.stdout.write(JSON.stringify({ ...(result as object), loadCpuUs: used.user + used.system }));
