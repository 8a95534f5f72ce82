// The soak's reverse proxy, run as its own process (`node proxy.js PORT UPSTREAM...`)
// so that proxying does not share an event loop with the load it measures. Round
// robin over the upstreams, appending the client's address to X-Forwarded-For as
// nginx's $proxy_add_x_forwarded_for does (the services run with TRUST_PROXY=1).
//
// Like nginx's `proxy_next_upstream error`, a request whose upstream refuses the
// connection goes to the next one, and the refusing one is skipped for a while: a
// load balancer in front of two hosts hides a host that is down, not the requests
// that were inside it when it died. And like `proxy_next_upstream error http_503`
// (docs/operations.md), a read answered 503 goes to the next host: a site process
// that lost PostgreSQL serves only the visitor answers it built itself, and the
// other process may hold the one asked. Reads are GET and HEAD, and the POSTs named
// in RETRY_503_POSTS (the update check, a read with a body: nginx's `non_idempotent`
// in that location); the last host's 503 is the answer. The body is read whole first (the soak's are a
// few hundred KiB at most), so a retry resends the same bytes. Each answer names the
// upstream that gave it (X-Soak-Upstream: its port): a site process can only keep
// answers it built itself, and the soak judges the outage per process.
import { request, createServer, type IncomingMessage, type ServerResponse } from 'node:http';

const MAX_BODY_BYTES = 48 * 1024 * 1024;
const DOWN_FOR_MS = 2000;
const UPSTREAM_TIMEOUT_MS = 60_000;
/** Hop-by-hop headers (RFC 9110 7.6.1) are not forwarded. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

interface Upstream {
  host: string;
  port: number;
  downUntil: number;
}

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.destroy();
        resolve(null);
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function forwardedHeaders(req: IncomingMessage, bodyLength: number): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
  }
  const client = req.socket.remoteAddress?.replace(/^::ffff:/, '') ?? 'unknown';
  const prior = req.headers['x-forwarded-for'];
  headers['x-forwarded-for'] = prior ? `${prior}, ${client}` : client;
  if (bodyLength > 0 || req.method === 'POST' || req.method === 'PUT' || req.method === 'PATCH') headers['content-length'] = String(bodyLength);
  return headers;
}

type Attempt = 'done' | 'refused' | 'unavailable';

function attempt(
  upstream: Upstream, req: IncomingMessage, headers: Record<string, string | string[]>, body: Buffer, res: ServerResponse, passOn503: boolean,
): Promise<Attempt> {
  return new Promise((resolve) => {
    const outgoing = request({ host: upstream.host, port: upstream.port, method: req.method, path: req.url, headers, timeout: UPSTREAM_TIMEOUT_MS });
    let answered = false;
    outgoing.on('response', (incoming) => {
      answered = true;
      if (passOn503 && incoming.statusCode === 503) {
        // Read and dropped: the next host is asked.
        incoming.on('end', () => resolve('unavailable'));
        incoming.on('error', () => resolve('unavailable'));
        incoming.on('aborted', () => resolve('unavailable'));
        incoming.resume();
        return;
      }
      const out: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(incoming.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
      out['x-soak-upstream'] = String(upstream.port);
      res.writeHead(incoming.statusCode ?? 502, out);
      incoming.pipe(res);
      incoming.on('error', () => res.destroy());
      incoming.on('aborted', () => res.destroy());
      res.on('close', () => resolve('done'));
    });
    outgoing.on('timeout', () => outgoing.destroy(new Error('upstream timeout')));
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      if (answered) return res.destroy();
      if (error.code === 'ECONNREFUSED') return resolve('refused');
      // Sent and lost (a host killed mid-request): the client sees it, as behind nginx.
      if (!res.headersSent) {
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ success: false, code: 'BAD_GATEWAY', error: `proxy: ${error.code ?? error.message}` }));
      } else res.destroy();
      resolve('done');
    });
    outgoing.end(body);
  });
}

/** Whether a 503 of this request may be asked again of the next host (above). */
function retriesOn503(req: IncomingMessage, posts: ReadonlySet<string>): boolean {
  if (req.method === 'GET' || req.method === 'HEAD') return true;
  return req.method === 'POST' && posts.has((req.url ?? '').split('?')[0]!);
}

export function startProxy(port: number, targets: string[], retry503Posts: ReadonlySet<string> = new Set()): void {
  const upstreams: Upstream[] = targets.map((target) => {
    const url = new URL(target);
    return { host: url.hostname, port: Number(url.port), downUntil: 0 };
  });
  let next = 0;
  const server = createServer(async (req, res) => {
    const body = await readBody(req).catch(() => null);
    if (body === null) {
      res.writeHead(413).end();
      return;
    }
    const headers = forwardedHeaders(req, body.length);
    const now = Date.now();
    const order = upstreams.map((_, i) => upstreams[(next + i) % upstreams.length]!);
    next = (next + 1) % upstreams.length;
    // Hosts marked down go last: still tried when every host is down.
    order.sort((a, b) => Number(a.downUntil > now) - Number(b.downUntil > now));
    const retry503 = retriesOn503(req, retry503Posts);
    for (const [index, upstream] of order.entries()) {
      const outcome = await attempt(upstream, req, headers, body, res, retry503 && index < order.length - 1);
      if (outcome === 'done') return;
      // A host that answered 503 is up (its database is not): not skipped for the next requests.
      if (outcome === 'refused') upstream.downUntil = Date.now() + DOWN_FOR_MS;
    }
    res.writeHead(502, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ success: false, code: 'BAD_GATEWAY', error: 'proxy: every upstream refused the connection' }));
  });
  server.keepAliveTimeout = 30_000;
  server.listen(port, '127.0.0.1', () => process.stdout.write('listening\n'));
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

const [port, ...targets] = process.argv.slice(2);
const posts = new Set((process.env.RETRY_503_POSTS ?? '').split(',').filter((path) => path !== ''));
if (port !== undefined && targets.length > 0) startProxy(Number(port), targets, posts);
