import { isUtf8 } from 'node:buffer';
import type { Readable } from 'node:stream';
import { HttpError, badRequest, validationFailed } from '../errors.js';
import { boundaryFrom } from './boundary.js';
import { describePart } from './content-disposition.js';
import { FileStream } from './file-stream.js';
import { resolveLimits, type MultipartLimits } from './limits.js';
import { createScanner } from './scanner.js';
import { openSource } from './source.js';
import type { Part } from './types.js';

// RFC 7578 §4.4: a part without Content-Type is text/plain. FieldPart does not carry
// a type (a field is its UTF-8 value), so only the file default is spelled out; for a
// file, "some bytes" is the honest default.
const FILE_CONTENT_TYPE = 'application/octet-stream';

const noop = () => {};

const tooLarge = (message: string, field: string) =>
  new HttpError(413, 'PAYLOAD_TOO_LARGE', message, { field });

/** Nothing reads a stream with no 'data'/'readable' listener that is not flowing. */
const isConsumed = (stream: Readable) =>
  stream.readableFlowing === true ||
  stream.listenerCount('data') > 0 ||
  stream.listenerCount('readable') > 0 ||
  stream.destroyed ||
  stream.readableEnded;

/**
 * See index.ts for the contract. The generator body reads headers and fields; the
 * content of a file is pumped by a separate task (pumpFile) driven by the file
 * stream's demand, so a consumer may await the whole file inside its loop body
 * while the generator sits at `yield`.
 */
export async function* parseMultipart(
  source: AsyncIterable<Buffer> | Readable,
  contentType: string | undefined,
  limits?: Partial<MultipartLimits>,
): AsyncGenerator<Part> {
  const boundary = boundaryFrom(contentType);
  const max = resolveLimits(limits);
  const input = openSource(source);
  const scanner = createScanner(boundary, max.headerBytes);
  let closed = false;
  /** The file stream being pumped, until its part ends or fails. */
  let current: FileStream | null = null;
  let parts = 0;
  let files = 0;
  let fields = 0;

  /** Pushes the next chunk into the scanner. Once closed it pushes nothing. */
  async function feed(): Promise<void> {
    const chunk = await input.pull();
    if (closed) return;
    if (chunk === null) throw badRequest('Unexpected end of form');
    scanner.push(chunk);
  }

  async function readField(name: string): Promise<string> {
    const chunks: Buffer[] = [];
    let size = 0;
    for (;;) {
      const event = scanner.next();
      if (event === 'need-more') {
        await feed();
      } else if (event === 'data') {
        size += scanner.data.length;
        if (size > max.fieldBytes) throw tooLarge(`Field exceeds ${max.fieldBytes} bytes`, name);
        chunks.push(scanner.data);
      } else if (event === 'part-end') {
        const bytes = Buffer.concat(chunks, size);
        // toString would turn bytes that are not UTF-8 into U+FFFD, and they would be stored so.
        if (!isUtf8(bytes)) throw validationFailed(name, `${name} is not valid UTF-8`);
        return bytes.toString('utf8');
      } else {
        throw new Error(`multipart scanner: unexpected ${event} inside a part`);
      }
    }
  }

  async function pumpFile(stream: FileStream, name: string): Promise<void> {
    let size = 0;
    try {
      for (;;) {
        if (closed) return; // the generator's finally has destroyed the stream
        const event = scanner.next();
        if (event === 'need-more') {
          await feed();
        } else if (event === 'data') {
          const data = scanner.data;
          size += data.length;
          if (size > max.fileBytes) throw tooLarge(`File exceeds ${max.fileBytes} bytes`, name);
          // A consumer that destroyed the stream does not want the file; we still
          // read to the end of the part to reach the next one.
          const wait = stream.offer(data);
          if (wait !== null) await wait;
        } else if (event === 'part-end') {
          current = null;
          stream.finish();
          return;
        } else {
          throw new Error(`multipart scanner: unexpected ${event} inside a part`);
        }
      }
    } catch (err) {
      current = null;
      stream.fail(err);
      throw err;
    }
  }

  try {
    for (;;) {
      const event = scanner.next();
      if (event === 'need-more') {
        await feed();
        continue;
      }
      if (event === 'done') return;
      if (event !== 'headers') throw new Error(`multipart scanner: unexpected ${event} between parts`);

      const part = describePart(scanner.headers);
      if (++parts > max.parts) throw tooLarge(`Too many parts (limit ${max.parts})`, part.name);
      if (part.filename === undefined) {
        if (++fields > max.fields) throw tooLarge(`Too many fields (limit ${max.fields})`, part.name);
        yield { kind: 'field', name: part.name, value: await readField(part.name) };
        continue;
      }

      if (++files > max.files) throw tooLarge(`Too many files (limit ${max.files})`, part.name);
      const stream = new FileStream();
      current = stream;
      const pumping = pumpFile(stream, part.name);
      // Rejections are rethrown by the `await` below; until then this keeps a
      // failure that happens while we sit at `yield` from being "unhandled".
      pumping.catch(noop);
      yield {
        kind: 'file',
        name: part.name,
        filename: part.filename,
        contentType: part.contentType ?? FILE_CONTENT_TYPE,
        stream,
      };
      // The consumer wants the next part. A stream nobody reads would never drain,
      // so drain it: its remaining content is discarded.
      if (!isConsumed(stream)) stream.resume();
      await pumping;
    }
  } finally {
    closed = true;
    // Stopped early (break, return, or an error elsewhere): this file will not get
    // the rest of its content, so it must not look complete.
    current?.destroy();
    current = null;
    input.close();
  }
}
