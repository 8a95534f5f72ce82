// The soak's load: requests started at a fixed rate whatever the answers take (an
// open loop: a slow server is not given a rest), from many client addresses
// (127.0.1.x, so the proxies' X-Forwarded-For and the per-address limits see many
// clients), each with a timeout. Launchers poll /api/info in turn (a launcher keeps
// its address): at the mix's share of the rate that is every 5 s per launcher.
import { Pool } from 'undici';
import type { Mix, Planned } from './mix.js';
import type { Recorder } from './record.js';

const ADDRESSES = 32;
const TICK_MS = 10;
const CONNECTIONS_PER_ADDRESS = 8;

export interface Targets {
  site: string;
  img: string;
}

function errorKind(error: unknown): string {
  const e = error as { name?: string; code?: string; message?: string };
  if (e.name === 'TimeoutError' || e.name === 'AbortError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT') return 'timeout';
  return `connection: ${e.code ?? e.name ?? 'error'}`;
}

function statusKind(status: number, body: Buffer): string {
  let code = '';
  try {
    const answer = JSON.parse(body.toString()) as { code?: unknown };
    if (typeof answer.code === 'string') code = ` ${answer.code}`;
  } catch {
    // Not JSON (an image host's text answer): the status alone.
  }
  return `${status}${code}`;
}

export function createDriver(targets: Targets, mix: Mix, recorder: Recorder, options: { rate: number; timeoutMs: number }) {
  const pools = Array.from({ length: ADDRESSES }, (_, i) => {
    const localAddress = `127.0.1.${i + 1}`;
    return {
      site: new Pool(targets.site, { localAddress, connections: CONNECTIONS_PER_ADDRESS }),
      img: new Pool(targets.img, { localAddress, connections: CONNECTIONS_PER_ADDRESS }),
    };
  });
  // Beyond this many waiting, the load generator itself is behind: counted, not sent.
  const maxInFlight = Math.max(200, Math.ceil((options.rate * options.timeoutMs) / 1000));
  let inFlight = 0;
  let launcher = 0;
  let t0 = 0;
  const now = () => (performance.now() - t0) / 1000;

  async function send(planned: Planned, address: number): Promise<void> {
    const start = now();
    const pool = pools[address % ADDRESSES]![planned.target];
    let error: string | null = null;
    let follow: Planned | undefined;
    let upstream: string | undefined;
    inFlight++;
    try {
      const { statusCode, headers, body } = await pool.request({
        path: planned.path,
        method: planned.method,
        headers: planned.headers,
        body: planned.body,
        signal: AbortSignal.timeout(options.timeoutMs),
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
      });
      const bytes = Buffer.from(await body.arrayBuffer());
      upstream = typeof headers['x-soak-upstream'] === 'string' ? headers['x-soak-upstream'] : undefined;
      if (statusCode !== planned.expect) error = statusKind(statusCode, bytes);
      else error = planned.check?.(bytes) ?? null;
      if (error === null && planned.stored) {
        const stored = planned.stored(bytes);
        if (stored === null) error = 'check: no address in the answer';
        else {
          recorder.stored({ path: stored.path, sha256: stored.sha256 });
          follow = stored.next;
        }
      }
    } catch (caught) {
      error = errorKind(caught);
    } finally {
      inFlight--;
    }
    recorder.record({ kind: planned.kind, start, end: now(), error, visitorRead: planned.visitorRead, upstream });
    if (follow) await send(follow, address);
  }

  function issue(): void {
    const planned = mix.pick();
    const address = planned.kind === 'info' ? launcher++ % mix.launchers : Math.floor(Math.random() * ADDRESSES);
    if (inFlight >= maxInFlight) {
      const t = now();
      recorder.record({ kind: planned.kind, start: t, end: t, error: 'client: too many in flight' });
      return;
    }
    void send(planned, address);
  }

  return {
    /** Runs the load for `seconds`; resolves when the last request has ended. `started` gets the clock's zero. */
    async run(seconds: number, started: (t0: number) => void): Promise<void> {
      t0 = performance.now();
      started(t0);
      let issued = 0;
      await new Promise<void>((resolve) => {
        const timer = setInterval(() => {
          const elapsed = now();
          if (elapsed >= seconds) {
            clearInterval(timer);
            return resolve();
          }
          const due = Math.floor(elapsed * options.rate) - issued;
          for (let i = 0; i < due; i++) issue();
          issued += Math.max(0, due);
        }, TICK_MS);
      });
      while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    },
    close: () => Promise.all(pools.flatMap((pair) => [pair.site.close(), pair.img.close()])),
  };
}
