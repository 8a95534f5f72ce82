// Uploads through the site's POST /apps/api/media/upload, for the media tests,
// the smoke test and the benchmark.
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { deflateSync, crc32 } from 'node:zlib';

export const UPLOAD_PATH = '/apps/api/media/upload';

export interface SiteAnswer {
  status: number;
  headers: Headers;
  body: any;
}

/** A Blob of the bytes (a copy: Blob wants an ArrayBuffer-backed view, not a pooled Buffer). */
const blobOf = (bytes: Buffer) => new Blob([new Uint8Array(bytes)]);

/** POST a form with `bytes` as its `image` part, as a browser would. */
export async function uploadThroughSite(
  siteUrl: string,
  cookie: string | undefined,
  bytes: Buffer,
  filename: string,
  headers: Record<string, string> = {},
): Promise<SiteAnswer> {
  const form = new FormData();
  form.append('image', blobOf(bytes), filename);
  return postToSite(siteUrl, cookie, form, headers);
}

/** POST any body to the upload route and read the JSON answer (text when it is not JSON). */
export async function postToSite(
  siteUrl: string,
  cookie: string | undefined,
  body: FormData | string | Buffer | ReadableStream<Uint8Array>,
  headers: Record<string, string> = {},
): Promise<SiteAnswer> {
  const init: RequestInit & { duplex?: 'half' } = {
    method: 'POST',
    body: Buffer.isBuffer(body) ? new Uint8Array(body) : body,
    headers: { ...(cookie === undefined ? {} : { cookie }), ...headers },
  };
  if (body instanceof ReadableStream) init.duplex = 'half';
  const res = await fetch(siteUrl + UPLOAD_PATH, init);
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // left as text: the assertion on it will say what came back
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

export interface FormPart {
  name: string;
  filename?: string;
  contentType?: string;
  data: Buffer | string;
}

/** A multipart/form-data body built by hand, for the shapes FormData cannot make. */
export function multipartBody(parts: FormPart[], boundary = 'test-' + randomBytes(8).toString('hex')): { body: Buffer; contentType: string } {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if (part.filename !== undefined) head += `; filename="${part.filename}"`;
    head += '\r\n';
    if (part.contentType !== undefined) head += `Content-Type: ${part.contentType}\r\n`;
    chunks.push(Buffer.from(head + '\r\n'), Buffer.from(part.data), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** A body that yields `bytes` in chunks, for a chunked (no Content-Length) upload. */
export function streamOf(bytes: Buffer, chunkSize = 64 * 1024): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(new Uint8Array(bytes.subarray(offset, offset + chunkSize)));
      offset += chunkSize;
    },
  });
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/**
 * A valid RGB PNG of random pixels, stored without compression so its size is
 * known in advance: `width`×`height`×3 bytes of pixels plus a little framing. Big
 * images are made in milliseconds this way (sharp would spend seconds encoding).
 */
export function makeNoisePng(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // truecolour
  const rowBytes = 1 + width * 3;
  const raw = randomBytes(rowBytes * height);
  for (let row = 0; row < height; row++) raw[row * rowBytes] = 0; // filter: none
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(raw, { level: 0 })),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A noise PNG just under `maxBytes` (8 MiB by default): the largest upload that is accepted. */
export function makePngUnder(maxBytes = 8 * 1024 * 1024): Buffer {
  const width = 1024;
  // Pixel rows plus the stored-deflate framing (5 bytes per 64 KiB block) and PNG chunks.
  const height = Math.floor((maxBytes - 4096) / ((1 + width * 3) * (1 + 5 / 65535)));
  return makeNoisePng(width, height);
}

/** Opens a raw connection to `baseUrl` (for requests fetch cannot make: half-sent bodies). */
export function rawConnection(baseUrl: string): Promise<Socket> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Reads from the socket until an HTTP answer head is in; returns its status line's code and the text so far. */
export function readAnswerHead(socket: Socket, timeoutMs = 5000): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms; got ${JSON.stringify(text)}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      text += chunk.toString('latin1');
      const match = /^HTTP\/1\.1 (\d{3})[^\r]*\r\n[\s\S]*?\r\n\r\n/.exec(text);
      if (match) {
        clearTimeout(timer);
        socket.off('data', onData);
        resolve({ status: Number(match[1]), text });
      }
    };
    socket.on('data', onData);
  });
}
