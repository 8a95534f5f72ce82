// A front for the image host whose behaviour a test switches: it relays to the
// real image host, or fails in one of the ways an image host can fail. And a
// listener that never completes a TCP connection, for the connect timeout.
import { spawn } from 'node:child_process';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

export type FakeMode =
  | 'relay'
  | 'status-500'
  | 'status-503'
  | 'image-refused'
  | 'not-json'
  | 'wrong-shape'
  | 'success-false'
  | 'foreign-url'
  | 'huge-answer'
  | 'hang-headers'
  | 'hang-body'
  | 'hang-up'
  | 'never-read';

export interface FakeImageHost {
  url: string;
  mode: FakeMode;
  close(): Promise<void>;
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
};

const FAILURES: Record<Exclude<FakeMode, 'relay' | 'never-read'>, (res: ServerResponse) => void> = {
  'status-500': (res) => json(res, 500, { success: false, message: 'Internal server error' }),
  'status-503': (res) => json(res, 503, { success: false, message: 'Server busy' }, { 'retry-after': '5' }),
  'image-refused': (res) => json(res, 400, { success: false, message: 'File is not a valid image' }),
  'not-json': (res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html><body>502 Bad Gateway</body></html>');
  },
  'wrong-shape': (res) => json(res, 200, { success: true, data: { url: 42 } }),
  'success-false': (res) => json(res, 200, { success: false, message: 'nope' }),
  'foreign-url': (res) =>
    json(res, 200, {
      success: true,
      data: { url: '//evil.example/x', webpUrl: '/img/1/x.webp', timestamp: 1, md5: '0'.repeat(32), filename: `${'0'.repeat(32)}.png` },
    }),
  'huge-answer': (res) => json(res, 200, { success: true, padding: 'x'.repeat(1024 * 1024) }),
  'hang-headers': () => {},
  'hang-body': (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"success":true,');
  },
  'hang-up': (res) => res.socket?.destroy(),
};

export async function startFakeImageHost(realUrl: string): Promise<FakeImageHost> {
  const real = new URL(realUrl);
  const relay = (req: IncomingMessage, res: ServerResponse) => {
    const upstream = request(
      { host: real.hostname, port: real.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.on('aborted', () => upstream.destroy());
    req.pipe(upstream);
  };
  const server = createServer((req, res) => {
    const mode = fake.mode;
    if (mode === 'relay') return relay(req, res);
    // Takes the connection and never reads the upload: the sender's buffers fill up.
    if (mode === 'never-read') return req.pause();
    // Read the whole upload first, as the image host would, then misbehave.
    req.resume();
    req.on('end', () => FAILURES[mode](res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const fake: FakeImageHost = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    mode: 'relay',
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return fake;
}

/**
 * A port whose connections never complete: a child process listens with a backlog
 * of one and then blocks, so it never accepts; once the kernel's queue is full
 * (two connections, opened here), further SYNs are dropped and a connect hangs.
 */
export async function startStalledListener(): Promise<{ url: string; close(): void }> {
  const program =
    "require('net').createServer().listen({ port: 0, host: '127.0.0.1', backlog: 1 }, function () {" +
    " process.stdout.write(this.address().port + '\\n'); Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0); })";
  const child = spawn(process.execPath, ['-e', program], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.once('data', (chunk: Buffer) => resolve(Number(String(chunk).trim())));
    child.once('error', reject);
  });
  const fillers: Socket[] = [];
  for (let i = 0; i < 2; i++) {
    await new Promise<void>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => resolve());
      socket.once('error', reject);
      fillers.push(socket);
    });
  }
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      for (const socket of fillers) socket.destroy();
      child.kill('SIGKILL');
    },
  };
}
