import { Readable } from 'node:stream';
import { Agent, request } from 'undici';
import { isObject } from '../../../../lib/json-object.js';
import { failureMessageOf } from '../../images/image-host-answer.js';
import type { ImageHostConfig } from '../../images/image-host-client.js';

// The image host's POST /api/packages/inspect (docs/api.md, "Packages"): the bytes
// of an outside link, sent on as they are fetched, inspected there exactly as an
// upload is, and kept nowhere. The answer is the upload's report without a URL.

const USER_AGENT = 'launcher-web-site';

/** The image host's report of a package it accepted (entries capped at 1,000 there). */
export interface InspectionReport {
  sha256: string;
  size: number;
  entryCount: number;
  /** The fields issue 31 adds, when this image host reports them. */
  manifest: { path: string; json: Record<string, unknown> } | null;
  manifestProblem: string | null;
  /** The answer's `data` as it came, for the manifest rules (versions/manifest). */
  data: Record<string, unknown>;
}

export type InspectionAnswer =
  | { kind: 'accepted'; report: InspectionReport }
  /** Not an acceptable package (400), or larger than the image host takes (413): the reason is for people. */
  | { kind: 'refused'; reason: string };

/** The image host could not inspect (down, busy, a bad token): the check is tried again later. */
export class InspectionUnavailable extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'InspectionUnavailable';
  }
}

export interface InspectClient {
  inspect(body: AsyncIterable<Buffer>, signal: AbortSignal): Promise<InspectionAnswer>;
  close(): Promise<void>;
}

export function createInspectClient(config: ImageHostConfig): InspectClient {
  const agent = new Agent({
    connect: { timeout: 5_000 },
    // The image host inflates every entry before it answers; the caller's signal bounds the whole.
    headersTimeout: 120_000,
    bodyTimeout: 30_000,
    connections: 8,
    maxResponseSize: 4 * 1024 * 1024,
  });
  return {
    async inspect(body, signal) {
      const headers: Record<string, string> = { accept: 'application/json', 'content-type': 'application/zip', 'user-agent': USER_AGENT };
      if (config.token !== undefined) headers.authorization = `Bearer ${config.token}`;
      const response = await request(`${config.url}/api/packages/inspect`, {
        dispatcher: agent,
        method: 'POST',
        headers,
        body: Readable.from(body),
        signal,
      });
      const text = await response.body.text();
      const status = response.statusCode;
      if (status === 400) return { kind: 'refused', reason: failureMessageOf(text) ?? 'Not an acceptable package' };
      if (status === 413) return { kind: 'refused', reason: 'The file is larger than PACKAGE_MAX_BYTES' };
      if (status !== 200) throw new InspectionUnavailable(`the image host answered ${status} to an inspection`);
      try {
        return { kind: 'accepted', report: reportFrom(JSON.parse(text)) };
      } catch (error) {
        throw new InspectionUnavailable(`the image host gave an unexpected inspection answer: ${(error as Error).message}`);
      }
    },
    close: () => agent.close(),
  };
}

const SHA256 = /^[0-9a-f]{64}$/;

function reportFrom(answer: unknown): InspectionReport {
  if (!isObject(answer) || answer.success !== true || !isObject(answer.data)) throw new Error('not {success: true, data}');
  const data = answer.data;
  if (typeof data.sha256 !== 'string' || !SHA256.test(data.sha256)) throw new Error('data.sha256 is not 64 hex digits');
  if (!Number.isSafeInteger(data.size) || (data.size as number) <= 0) throw new Error('data.size is not a positive whole number');
  if (!Number.isSafeInteger(data.entryCount) || (data.entryCount as number) < 0) throw new Error('data.entryCount is not a whole number');
  const manifest = isObject(data.manifest) && typeof data.manifest.path === 'string' && isObject(data.manifest.json)
    ? { path: data.manifest.path, json: data.manifest.json }
    : null;
  return {
    sha256: data.sha256,
    size: data.size as number,
    entryCount: data.entryCount as number,
    manifest,
    manifestProblem: typeof data.manifestProblem === 'string' ? data.manifestProblem : null,
    data,
  };
}
