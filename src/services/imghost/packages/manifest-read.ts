// A manifest's bytes read as the launcher reads them: Python's open(encoding=
// "utf-8") then json.load, which takes a byte order mark for a character and
// refuses it ("Unexpected UTF-8 BOM"), so a BOM is a problem here too, named as
// such. Where Python's json is laxer than JSON (NaN, Infinity), the manifest is
// refused: a reviewer reads it as JSON.

/** The launcher's manifests are a few hundred bytes; the issue bounds them at 64 KiB. */
export const MAX_MANIFEST_BYTES = 64 * 1024;
/**
 * Deeper nesting than any manifest needs; JSON.stringify recurses, and an array
 * nested 30,000 deep (60 KB) would overflow its stack when the answer is sent.
 */
export const MAX_MANIFEST_DEPTH = 64;

export type ManifestJson = Record<string, unknown>;

export type ManifestReading = { json: ManifestJson } | { problem: string };

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** `bytes` is the whole entry, of `size` bytes; null when it was too large to capture. */
export function readManifest(path: string, size: number, bytes: Buffer | null): ManifestReading {
  if (size > MAX_MANIFEST_BYTES || bytes === null) return { problem: `"${path}" is larger than ${MAX_MANIFEST_BYTES / 1024} KiB` };
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    return { problem: `"${path}" starts with a byte order mark (BOM), which the launcher does not read: save it as UTF-8 without BOM` };
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { problem: `"${path}" is not UTF-8 text` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: `"${path}" is not valid JSON (${shortMessage(error)})` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { problem: `"${path}" is not a JSON object (it is ${describe(value)})` };
  if (depthOver(value, MAX_MANIFEST_DEPTH)) return { problem: `"${path}" nests objects or arrays more than ${MAX_MANIFEST_DEPTH} levels deep` };
  return { json: value as ManifestJson };
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/** V8's own words for where the JSON breaks, without the excerpt of the file that newer Node versions add. */
function shortMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/, ".*" is not valid JSON$/s, '').slice(0, 160);
}

/** Whether `root` nests deeper than `limit`, walked without recursion (JSON.parse itself does not recurse). */
function depthOver(root: object, limit: number): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value: root, depth: 1 }];
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    if (depth > limit) return true;
    for (const child of Object.values(value as object)) {
      if (child !== null && typeof child === 'object') stack.push({ value: child, depth: depth + 1 });
    }
  }
  return false;
}
