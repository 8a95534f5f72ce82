// Uploading plugin versions in tests: small ZIPs made by test/helpers/zip-writer.ts,
// sent as the multipart form of POST /apps/api/plugins/:id/versions.
import { buildZip, manifestFor } from '../../../helpers/zip-writer.js';
import { multipartBody, type FormPart } from '../../../helpers/media.js';

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

/** A ZIP whose entries are `files` (name -> content), as they are: with no manifest unless `files` has one. */
export function zipOf(files: Record<string, string>): Buffer {
  return buildZip(Object.entries(files).map(([name, data]) => ({ name, data: Buffer.from(data) })));
}

/**
 * A plugin's package: `files`, and first a plugin.json naming plugin `id` at
 * `version` (with `fields`), as every hosted version now needs (issue 31).
 */
export function packageOf(id: string, version: string, files: Record<string, string> = {}, fields: Record<string, unknown> = {}): Buffer {
  return zipOf({ 'plugin.json': manifestFor(id, version, fields).toString(), ...files });
}

/** The form's parts in this order (`order` lists `file`, `version`, `changelog`). */
export async function uploadVersion(
  siteUrl: string,
  pluginId: string,
  form: { zip?: Buffer; version?: string; changelog?: string; order?: Array<'file' | 'version' | 'changelog'> },
  headers: Record<string, string>,
): Promise<Answer> {
  const order = form.order ?? ['version', 'changelog', 'file'];
  const parts = order.flatMap((name): FormPart[] => {
    if (name === 'file') return form.zip ? [{ name: 'file', filename: 'plugin.zip', contentType: 'application/zip', data: form.zip }] : [];
    const value = form[name];
    return value === undefined ? [] : [{ name, data: value }];
  });
  const { body, contentType } = multipartBody(parts);
  const response = await fetch(`${siteUrl}/apps/api/plugins/${encodeURIComponent(pluginId)}/versions`, {
    method: 'POST',
    headers: { ...headers, 'content-type': contentType },
    body: new Uint8Array(body),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, headers: response.headers, body: parsed };
}
