// An HTTP forward proxy for tests, as HTTPS_PROXY names one: it answers CONNECT
// host:port by opening a tunnel, resolving names itself from a table (files.test
// and the certificate's other names to 127.0.0.1), so tests reach local servers by
// name with no DNS. It records every CONNECT, and refuses (502) a name it does not
// know, as a proxy that cannot resolve would. A plain request (not CONNECT) is
// answered 405: tests only go to https.
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

export interface ProxyConnect {
  /** host:port as the CONNECT line gave it. */
  target: string;
  /** The Proxy-Authorization header, if any. */
  authorization: string | undefined;
}

export interface ConnectProxy {
  port: number;
  /** http://127.0.0.1:PORT, what HTTPS_PROXY is set to. */
  url: string;
  connects: ProxyConnect[];
  /** Name → address the tunnel connects to. */
  hosts: Map<string, string>;
  close(): Promise<void>;
}

export const PROXIED_NAMES = ['files.test', 'other.test', 'receiver.test', 'idp.test'];

export async function startConnectProxy(): Promise<ConnectProxy> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    req.resume();
    res.writeHead(405, { 'content-type': 'text/plain' }).end('this test proxy only tunnels (CONNECT)');
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('connect', (req, client: Socket, head: Buffer) => {
    const target = req.url ?? '';
    proxy.connects.push({ target, authorization: req.headers['proxy-authorization'] });
    const match = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(target);
    const address = match ? proxy.hosts.get(match[1]!.toLowerCase()) : undefined;
    if (!match || address === undefined) {
      client.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    const upstream = connect(Number(match[2]), address, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    const end = () => {
      upstream.destroy();
      client.destroy();
    };
    upstream.on('error', end);
    client.on('error', end);
    client.on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const proxy: ConnectProxy = {
    port,
    url: `http://127.0.0.1:${port}`,
    connects: [],
    hosts: new Map(PROXIED_NAMES.map((name) => [name, '127.0.0.1'])),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  return proxy;
}
