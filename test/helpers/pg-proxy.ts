// A TCP proxy in front of PostgreSQL that a test can cut (close every connection,
// refuse new ones) or hang (keep every connection open but forward nothing, as a
// stopped server or a black-holed network would), then restore.
import { connect, createServer, type Server, type Socket } from 'node:net';

interface Link {
  client: Socket;
  upstream: Socket;
  flowing: boolean;
}

export interface PgProxy {
  /** The database URL through the proxy. */
  url: string;
  /** Connections currently open through the proxy. */
  open(): number;
  /** Closes every connection and stops listening. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  /** Stops forwarding in both directions; connections stay open, new ones are accepted and held. */
  hang(): void;
  /** Forwards again, what was held included. */
  resume(): void;
}

export async function startPgProxy(databaseUrl: string): Promise<PgProxy> {
  const target = new URL(databaseUrl);
  const links = new Set<Link>();
  let server: Server | undefined;
  let port = 0;
  let hung = false;

  const flow = (link: Link) => {
    if (link.flowing) return;
    link.flowing = true;
    link.client.pipe(link.upstream);
    link.upstream.pipe(link.client);
  };
  const hold = (link: Link) => {
    if (!link.flowing) return;
    link.flowing = false;
    link.client.unpipe(link.upstream);
    link.upstream.unpipe(link.client);
    link.client.pause();
    link.upstream.pause();
  };

  const start = () =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        const link: Link = { client, upstream: connect(Number(target.port), target.hostname), flowing: false };
        links.add(link);
        const drop = () => {
          links.delete(link);
          client.destroy();
          link.upstream.destroy();
        };
        client.on('error', drop).on('close', drop);
        link.upstream.on('error', drop).on('close', drop);
        if (!hung) flow(link);
      });
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as { port: number }).port;
        resolve();
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const link of links) {
        link.client.destroy();
        link.upstream.destroy();
      }
      links.clear();
      server!.close(() => resolve());
    });

  await start();
  const url = new URL(target.href);
  url.port = String(port);
  return {
    url: url.href,
    open: () => links.size,
    start,
    stop,
    hang: () => {
      hung = true;
      for (const link of links) hold(link);
    },
    resume: () => {
      hung = false;
      for (const link of links) flow(link);
    },
  };
}
