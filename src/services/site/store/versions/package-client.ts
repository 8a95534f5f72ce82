import type { Readable } from 'node:stream';
import { Agent, request } from 'undici';
import { HttpError, validationFailed } from '../../../../http/errors.js';
import { isObject } from '../../../../lib/json-object.js';
import { packageUrl } from '../../../../lib/package-names.js';
import { failureMessageOf } from '../../images/image-host-answer.js';
import { deferred, transportFailure, upstreamFailed, type ImageHostConfig } from '../../images/image-host-client.js';
import type { ImageHostLimits } from '../../images/limits.js';
import { packageReportFrom, type PackageReport } from './manifest/package-report.js';

// The site's side of the image host's packages (docs/api.md "Packages"): a version's
// ZIP is relayed as the body of POST {IMAGE_HOST_URL}/api/packages while it is still
// arriving from the author, chunk by chunk with backpressure, never held whole (as
// media upload relays images, src/services/site/images/image-host-client.ts, whose limits and
// failures this shares); and DELETE /api/packages/:sha256 for a removal.

const USER_AGENT = 'launcher-web-site';
/** The relay's writes to the image host: at least this many bytes, but the last. */
const WRITE_BYTES = 256 * 1024;
const noop = () => {};

/** One file entry as the image host listed it. */
export interface PackageEntry {
  name: string;
  size: number;
  crc32: number;
}

/** The image host's answer, checked; `download` absolute under IMAGE_HOST_PUBLIC_URL. */
export interface StoredPackage {
  sha256: string;
  size: number;
  download: string;
  entries: PackageEntry[];
  entryCount: number;
  /** Its manifest, findings and every file's hash (issue 31). */
  report: PackageReport;
}

/**
 * `stored` with its download named `name`: the relay starts before a form's
 * `version` field may have come, under the plugin's id alone, and the hash alone
 * selects the file, so the version's download takes its full name here.
 */
export function namedPackage(stored: StoredPackage, name: string): StoredPackage {
  const at = stored.download.indexOf(`/pkg/${stored.sha256}/`);
  return { ...stored, download: stored.download.slice(0, at) + packageUrl(stored.sha256, name) };
}

/** One package on its way to the image host (see Relay of the media client). */
export interface PackageRelay {
  /** Resolves once the part's last byte was handed on; rejects with the client's error or a 502 / 400. */
  readonly contentSent: Promise<void>;
  /** The client's form is complete and valid: end the upstream body. */
  release(): void;
  /** Abandons the upstream request mid-body, so the image host keeps nothing. */
  abort(): void;
  readonly answer: Promise<StoredPackage>;
}

export interface PackageClient {
  /** Relays `rest` (the file part's bytes) as a package named `name` (the file name the image host gives it). */
  relay(rest: AsyncIterator<Buffer>, name: string, requestId: string): PackageRelay;
  /** Deletes the package with this hash: its URL answers 410 from then on. */
  remove(sha256: string, requestId: string): Promise<void>;
  close(): Promise<void>;
}

export function createPackageClient(config: ImageHostConfig, limits: ImageHostLimits): PackageClient {
  const agent = new Agent({
    connect: { timeout: limits.connectTimeoutMs },
    // The image host inspects the whole ZIP (inflating every entry) before it answers.
    headersTimeout: Math.max(limits.headersTimeoutMs, 60_000),
    bodyTimeout: limits.bodyTimeoutMs,
    connections: limits.connections,
    // The answer lists every file with its hash (up to 10,000, the image host's
    // MAX_ENTRIES, names of up to 4 KiB), the first 1,000 again with sizes, the
    // manifest (64 KiB) and the findings: tens of MB at the very worst, about 100
    // bytes a file as packages are.
    maxResponseSize: 64 * 1024 * 1024,
  });
  const headersFor = (requestId: string): Record<string, string> => {
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': USER_AGENT, 'x-request-id': requestId };
    if (config.token !== undefined) headers.authorization = `Bearer ${config.token}`;
    return headers;
  };

  function relay(rest: AsyncIterator<Buffer>, name: string, requestId: string): PackageRelay {
    const controller = new AbortController();
    const sent = deferred<void>();
    const released = deferred<void>();
    sent.promise.catch(noop);
    released.promise.catch(noop);

    async function* body(): AsyncGenerator<Buffer> {
      try {
        // Chunks go on in writes of at least WRITE_BYTES: the author's 64 KiB socket
        // reads relayed one by one reached the image host as smaller reads (it drains
        // faster than they arrive), each a hash update and a file write of its own.
        let held: Buffer[] = [];
        let heldBytes = 0;
        for (;;) {
          const next = await rest.next();
          if (next.done === true) break;
          held.push(next.value);
          heldBytes += next.value.length;
          if (heldBytes < WRITE_BYTES) continue;
          yield held.length === 1 ? held[0]! : Buffer.concat(held, heldBytes);
          held = [];
          heldBytes = 0;
        }
        if (heldBytes > 0) yield held.length === 1 ? held[0]! : Buffer.concat(held, heldBytes);
      } catch (error) {
        // The author's part failed (too large, cut off): the upstream body stays unfinished, so nothing is kept.
        sent.reject(error);
        throw error;
      }
      sent.resolve();
      // The body ends only once the whole form is known good: until then the image
      // host holds an unfinished upload it will throw away.
      await released.promise;
    }

    const answer = (async (): Promise<StoredPackage> => {
      const headers = { ...headersFor(requestId), 'content-type': 'application/zip' };
      let text: string;
      let status: number;
      try {
        const url = `${config.url}/api/packages?name=${encodeURIComponent(name)}`;
        const streamed = body() as unknown as Readable;
        const response = await request(url, { dispatcher: agent, method: 'POST', headers, body: streamed, signal: controller.signal });
        status = response.statusCode;
        text = await response.body.text();
      } catch (error) {
        throw upstreamFailed(transportFailure(error));
      }
      if (status === 400) throw validationFailed('file', failureMessageOf(text) ?? 'Not an acceptable package');
      if (status === 413) throw new HttpError(413, 'PAYLOAD_TOO_LARGE', 'The package is larger than the image host accepts', { field: 'file' });
      if (status !== 201) throw upstreamFailed(statusFailure(status));
      try {
        return storedPackageFrom(JSON.parse(text), config.publicUrl);
      } catch (error) {
        throw upstreamFailed(`The image host gave an unexpected package answer: ${(error as Error).message}`);
      }
    })();
    // An answer before the whole file was sent is a failure (the image host refused it).
    answer.then(
      () => sent.reject(upstreamFailed('The image host answered before the package was complete')),
      (error: unknown) => sent.reject(error),
    );
    answer.catch(noop);
    return {
      contentSent: sent.promise,
      release: () => released.resolve(),
      abort: () => {
        released.reject(new Error('upload abandoned'));
        controller.abort();
      },
      answer,
    };
  }

  async function remove(sha256: string, requestId: string): Promise<void> {
    let status: number;
    try {
      const response = await request(`${config.url}/api/packages/${sha256}`, { dispatcher: agent, method: 'DELETE', headers: headersFor(requestId) });
      status = response.statusCode;
      await response.body.dump();
    } catch (error) {
      throw upstreamFailed(transportFailure(error));
    }
    // 404: the image host never had it (or lost it): nothing left to serve either way.
    if (status !== 200 && status !== 404) throw upstreamFailed(statusFailure(status));
  }

  return { relay, remove, close: () => agent.close() };
}

const SHA256 = /^[0-9a-f]{64}$/;
const PACKAGE_PATH = /^\/pkg\/[0-9a-f]{64}\/[A-Za-z0-9][A-Za-z0-9._-]{0,99}\.zip$/;

/** `{success: true, data: {sha256, size, url, entries, entryCount, manifest, manifestProblem, findings, files}}`, checked like any input. */
export function storedPackageFrom(answer: unknown, publicBase: string): StoredPackage {
  if (!isObject(answer) || answer.success !== true || !isObject(answer.data)) throw new Error('not {success: true, data}');
  const { sha256, size, url, entries, entryCount } = answer.data;
  if (typeof sha256 !== 'string' || !SHA256.test(sha256)) throw new Error('data.sha256 is not 64 hex digits');
  if (!Number.isSafeInteger(size) || (size as number) <= 0) throw new Error('data.size is not a positive whole number');
  if (typeof url !== 'string' || !PACKAGE_PATH.test(url) || !url.startsWith(`/pkg/${sha256}/`)) throw new Error('data.url is not this package\'s path');
  if (!Number.isSafeInteger(entryCount) || (entryCount as number) <= 0) throw new Error('data.entryCount is not a positive whole number');
  if (!Array.isArray(entries) || entries.length > 1000) throw new Error('data.entries is not a list of at most 1,000');
  const checked = entries.map((entry): PackageEntry => {
    if (!isObject(entry) || typeof entry.name !== 'string' || entry.name.length > 4096) throw new Error('an entry has no name');
    if (!Number.isSafeInteger(entry.size) || (entry.size as number) < 0) throw new Error('an entry has no size');
    if (!Number.isSafeInteger(entry.crc32) || (entry.crc32 as number) < 0) throw new Error('an entry has no crc32');
    return { name: entry.name, size: entry.size as number, crc32: entry.crc32 as number };
  });
  const report = packageReportFrom(answer.data, entryCount as number);
  return { sha256, size: size as number, download: publicBase + url, entries: checked, entryCount: entryCount as number, report };
}

function statusFailure(status: number): string {
  if (status === 401 || status === 403) return `The image host refused the site's upload token (answered ${status}); check IMGHOST_UPLOAD_TOKEN`;
  if (status === 503) return 'The image host is busy; try again shortly';
  if (status === 507) return 'The image host\'s disk is full';
  return `The image host failed (answered ${status})`;
}

