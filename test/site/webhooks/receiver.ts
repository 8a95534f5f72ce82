// A webhook receiver for tests: an HTTPS server on 127.0.0.1 with a self-signed
// certificate made now (openssl) for the names tests resolve to it, recording
// every request and answering as the test says.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { tempDir } from '../../helpers/servers.js';

/** Names the certificate is valid for; tests' resolvers point them where they like. */
export const RECEIVER_NAMES = ['receiver.test', 'rebind.test', 'loop.test', 'ten.test', 'meta.test', 'six.test', 'mapped.test', 'mixed.test'];

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  remoteAddress: string | undefined;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  delayMs?: number;
}

export interface Receiver {
  port: number;
  /** The certificate, PEM: the CA a test dispatcher trusts. */
  ca: string;
  requests: Received[];
  /** What the next requests get, in order; after the list, `fallback`. */
  answers: Answer[];
  fallback: Answer;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const dir = tempDir('lw-webhook-cert-');
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert,
    '-days', '1', '-subj', '/CN=receiver.test', '-addext', 'subjectAltName=' + RECEIVER_NAMES.map((name) => `DNS:${name}`).join(','),
  ], { stdio: 'ignore' });
  const ca = readFileSync(cert, 'utf8');
  const server: Server = createServer({ key: readFileSync(key), cert: ca }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      receiver.requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks), remoteAddress: req.socket.remoteAddress });
      const answer = receiver.answers.shift() ?? receiver.fallback;
      setTimeout(() => {
        res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
        res.end('ok');
      }, answer.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const receiver: Receiver = {
    port: (server.address() as AddressInfo).port,
    ca,
    requests: [],
    answers: [],
    fallback: { status: 200 },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return receiver;
}
