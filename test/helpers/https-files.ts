// A local HTTPS server for tests of what the site fetches from the internet: it
// serves what a test puts at a path (bytes, a redirect, a status, a stall, or a
// large body made as it is sent), with the test CA's certificate (tls-fixtures.ts),
// on 127.0.0.1 and a random port. Tests reach it as https://files.test:PORT/...
// through the test proxy (connect-proxy.ts), which resolves that name here.
import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { testServerCert } from './tls-fixtures.js';

export type FileAnswer =
  | { kind: 'bytes'; body: Buffer; contentType?: string }
  | { kind: 'status'; status: number }
  | { kind: 'redirect'; status?: 301 | 302 | 303 | 307 | 308; location: string }
  /** Headers sent, then nothing: the client's time limit must end it. */
  | { kind: 'stall' }
  /** `size` bytes of `fill`, made as they are sent (never held whole), with or without Content-Length. */
  | { kind: 'generated'; size: number; fill?: number; declareLength?: boolean };

export interface FileRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
}

export interface FileServer {
  port: number;
  /** https://files.test:PORT, the origin tests name. */
  origin: string;
  requests: FileRequest[];
  /** What each path answers; an unknown path is 404. */
  files: Map<string, FileAnswer>;
  /** Bytes written to clients in all, so a test can see a fetch stopped early. */
  bytesSent(): number;
  close(): Promise<void>;
}

const CHUNK = 64 * 1024;

export async function startFileServer(host = 'files.test'): Promise<FileServer> {
  let sent = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer(testServerCert(), (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    files.requests.push({ method: req.method ?? '', path, headers: req.headers });
    req.resume();
    answer(files.files.get(path), res);
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  function answer(what: FileAnswer | undefined, res: ServerResponse) {
    if (!what) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    switch (what.kind) {
      case 'bytes':
        sent += what.body.length;
        return void res.writeHead(200, { 'content-type': what.contentType ?? 'application/zip', 'content-length': String(what.body.length) }).end(what.body);
      case 'status':
        return void res.writeHead(what.status, { 'content-type': 'text/plain' }).end(`status ${what.status}`);
      case 'redirect':
        return void res.writeHead(what.status ?? 302, { location: what.location }).end();
      case 'stall':
        res.writeHead(200, { 'content-type': 'application/zip' });
        res.flushHeaders();
        return;
      case 'generated': {
        res.writeHead(200, { 'content-type': 'application/zip', ...(what.declareLength === false ? {} : { 'content-length': String(what.size) }) });
        const chunk = Buffer.alloc(CHUNK, what.fill ?? 0x41);
        let left = what.size;
        const pump = () => {
          while (left > 0) {
            const piece = left >= CHUNK ? chunk : chunk.subarray(0, left);
            left -= piece.length;
            sent += piece.length;
            if (!res.write(piece)) return void res.once('drain', pump);
          }
          res.end();
        };
        res.on('close', () => (left = 0));
        pump();
        return;
      }
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const files: FileServer = {
    port,
    origin: `https://${host}:${port}`,
    requests: [],
    files: new Map(),
    bytesSent: () => sent,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  return files;
}
