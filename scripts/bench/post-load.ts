// One autocannon run of POST requests with a JSON body, each request from its own
// client address (X-Forwarded-For, for a server with TRUST_PROXY=true), so a
// per-address rate limit measures the route, not the limiter's 429. Run pinned to
// the load core by its caller; prints autocannon's result as JSON on stdout.
//
//   node post-load.js <url> <body file> <connections> <seconds> [<Accept-Encoding> [<requests/s>]]
//
// With a rate, the load is that many requests a second over all connections (not
// as many as the server takes): two builds compared at the same rate batch the
// same number of requests per turn of the event loop, so their CPU per answer
// compares even on a machine others are using.
import { readFileSync } from 'node:fs';

// autocannon ships no type declarations; its options are documented in its README.
const autocannon = (await import('autocannon' as string)).default as (options: Record<string, unknown>) => Promise<unknown>;

const [url, bodyFile, connections, seconds, acceptEncoding = '', rate = ''] = process.argv.slice(2);
const body = readFileSync(bodyFile!, 'utf8');
let address = 0;
const nextAddress = () => {
  address = (address + 1) % 16_000_000;
  return `10.${(address >> 16) & 255}.${(address >> 8) & 255}.${address & 255}`;
};

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
      setupRequest: (request: Record<string, any>) => ({ ...request, headers: { ...request.headers, 'x-forwarded-for': nextAddress() } }),
    },
  ],
});
process.stdout.write(JSON.stringify(result));
