import { request } from 'node:http';
import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The body as received, for binary answers. */
  bytes: Buffer;
}

/** An HTTP request with the path sent exactly as given (fetch would normalize it). */
export function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<RawResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method, path, headers: options.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => {
        const bytes = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: bytes.toString('utf8'), bytes });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

export interface RawExchange {
  status: number;
  /** Header lines as sent, names in lower case, every value of a repeated name kept. */
  headers: Array<[string, string]>;
  body: string;
}

/**
 * Writes `bytes` on a fresh connection and reads until the server closes it (or
 * `waitMs` passes): for requests an HTTP client library would refuse to send.
 * Resolves with status 0 when nothing came back.
 */
export function rawExchange(baseUrl: string, bytes: string | Buffer, waitMs = 5000): Promise<RawExchange> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), waitMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' || error.code === 'EPIPE' ? undefined : reject(error)));
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('utf8');
      const end = text.indexOf('\r\n\r\n');
      if (end === -1) return resolve({ status: 0, headers: [], body: text });
      const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
      const headers = lines.map((line): [string, string] => {
        const colon = line.indexOf(':');
        return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
      });
      resolve({ status: Number(statusLine!.split(' ')[1]), headers, body: text.slice(end + 4) });
    });
    socket.write(bytes);
  });
}

/** Every value of header `name` in a raw exchange. */
export function headerValues(exchange: RawExchange, name: string): string[] {
  return exchange.headers.filter(([key]) => key === name).map(([, value]) => value);
}
