// The soak's mix of requests, as visitors, launchers and authors make them. Each
// pick is one Planned request; some carry a follow-up (an upload's preview) or a
// check of the bytes answered (a resumed download must be the file's tail).
import { createHash, randomBytes } from 'node:crypto';
import { pluginZip } from '../../test/helpers/zip-writer.js';
import { withComment } from '../bench/test-files.js';
import { PACKAGE_BYTES, sha256, type SoakData } from './seed.js';

export type Kind =
  | 'info' | 'fastdownload' | 'list' | 'search' | 'detail' | 'ratings' | 'manifest' | 'install-link'
  | 'icon' | 'image' | 'preview' | 'download' | 'download-resume' | 'updates'
  | 'install-click' | 'rate' | 'image-upload' | 'package-upload';

export interface Planned {
  kind: Kind;
  target: 'site' | 'img';
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  headers: Record<string, string>;
  body?: Buffer | string;
  /** The status that means it worked. */
  expect: number;
  /**
   * A visitor's read whose answer a site process keeps: it must still be answered
   * while PostgreSQL is down once it was seen before (the key of that answer).
   */
  visitorRead?: string;
  /** Says what is wrong with a body answered with `expect`, or null. */
  check?: (body: Buffer) => string | null;
  /** A stored upload: the path to re-fetch at the end and the hash its bytes must have. */
  stored?: (body: Buffer) => { path: string; sha256: string; next?: Planned } | null;
}

/** Weights per 100 requests (docs/soak.md); launcher info polls are the launchers' every 5 s. */
export const MIX: Record<Kind, number> = {
  info: 30, fastdownload: 2, list: 12, search: 6, detail: 10, ratings: 5, manifest: 1, 'install-link': 1,
  icon: 8, image: 4, preview: 4, download: 3, 'download-resume': 2, updates: 5,
  'install-click': 3, rate: 1, 'image-upload': 1, 'package-upload': 0.3,
};

const SORTS = ['updated', 'rating', 'installs'];
const COLOURS = ['red', '%23336699', 'teal', '%23ff8800'];
const UPDATE_BODIES = 12;
const BOUNDARY = '----soakboundary7d1f';

export interface Mix {
  /** A request of a kind drawn by weight. */
  pick(): Planned;
  /** Launchers polling /api/info every 5 s at this rate. */
  launchers: number;
}

export function createMix(data: SoakData, rate: number, baseJpeg: Buffer): Mix {
  const kinds = Object.keys(MIX) as Kind[];
  const total = kinds.reduce((sum, kind) => sum + MIX[kind], 0);
  const launchers = Math.max(1, Math.round(((rate * MIX.info) / total) * 5));
  // Popular plugins are read more: a square-root skew over the installs order.
  const popular = <T>(list: readonly T[]) => list[Math.floor(list.length * Math.random() ** 2)]!;
  const any = <T>(list: readonly T[]) => list[Math.floor(Math.random() * list.length)]!;
  // Visitor reads kept through an outage: launcher info, lists, details, ratings pages (and the update check).
  const visitor = (kind: Kind, path: string, kept = true): Planned => ({
    kind, target: 'site', method: 'GET', path, headers: {}, expect: 200, ...(kept ? { visitorRead: `GET ${path}` } : {}),
  });
  const updateBodies = Array.from({ length: UPDATE_BODIES }, (_, n) =>
    JSON.stringify({
      plugins: data.hosted.filter((_, i) => (i + n) % 3 === 0).map((plugin, i) =>
        i % 2 === 0 ? { id: plugin.id, version: plugin.versions[0]!.version } : { id: plugin.id, sha256: plugin.versions[0]!.sha256 }),
    }));
  let uploads = 0;

  const build: Record<Kind, () => Planned> = {
    info: () => visitor('info', '/api/info'),
    fastdownload: () => visitor('fastdownload', '/api/fastdownload'),
    list: () => {
      const tag = Math.random() < 0.4 ? `&tag=${encodeURIComponent(any(data.tags))}` : '';
      return visitor('list', `/apps/api/plugins?public=1&sort=${any(SORTS)}&limit=${any([20, 50, 100])}${tag}`);
    },
    search: () => visitor('search', `/apps/api/plugins?public=1&q=${encodeURIComponent(any(data.searches))}`),
    detail: () => visitor('detail', `/apps/api/plugins/${encodeURIComponent(popular(data.plugins))}${Math.random() < 0.5 ? '?include=related' : ''}`),
    ratings: () => visitor('ratings', `/apps/api/plugins/${encodeURIComponent(popular(data.plugins))}/ratings?limit=20`),
    manifest: () => visitor('manifest', `/apps/api/plugins/${encodeURIComponent(popular(data.plugins))}/manifest.json`, false),
    'install-link': () => visitor('install-link', `/apps/api/plugins/${encodeURIComponent(popular(data.plugins))}/install-link`, false),
    icon: () => ({ kind: 'icon', target: 'img', method: 'GET', path: `/SF/${any(data.icons)}?color=${any(COLOURS)}${Math.random() < 0.3 ? '&png=true' : ''}`, headers: {}, expect: 200 }),
    image: () => ({ kind: 'image', target: 'img', method: 'GET', path: any(data.images).url, headers: {}, expect: 200 }),
    preview: () => ({ kind: 'preview', target: 'img', method: 'GET', path: any(data.images).webpUrl, headers: {}, expect: 200 }),
    download: () => {
      const version = any(any(data.hosted).versions);
      return { kind: 'download', target: 'img', method: 'GET', path: version.path, headers: {}, expect: 200, check: (body) => (sha256(body) === version.sha256 ? null : 'check: other bytes') };
    },
    'download-resume': () => {
      // A download cut off part-way, resumed from where it stopped.
      const version = any(any(data.hosted).versions);
      const from = 1 + Math.floor(Math.random() * (version.bytes.length - 1));
      const tail = createHash('sha256').update(version.bytes.subarray(from)).digest('hex');
      return {
        kind: 'download-resume', target: 'img', method: 'GET', path: version.path, headers: { range: `bytes=${from}-` }, expect: 206,
        check: (body) => (sha256(body) === tail ? null : 'check: other bytes'),
      };
    },
    updates: () => {
      const body = any(updateBodies);
      return {
        kind: 'updates', target: 'site', method: 'POST', path: '/apps/api/updates', headers: { 'content-type': 'application/json' }, body, expect: 200,
        visitorRead: `POST /apps/api/updates ${sha256(Buffer.from(body)).slice(0, 12)}`,
      };
    },
    'install-click': () => ({ kind: 'install-click', target: 'site', method: 'POST', path: `/apps/api/plugins/${encodeURIComponent(popular(data.plugins))}/install-click`, headers: {}, expect: 200 }),
    rate: () => ({
      kind: 'rate', target: 'site', method: 'PUT', path: `/apps/api/plugins/${encodeURIComponent(any(data.plugins))}/ratings`,
      headers: { 'content-type': 'application/json', cookie: any(data.visitorCookies) },
      body: JSON.stringify({ stars: 1 + Math.floor(Math.random() * 5), comment: 'Rated during the soak.' }), expect: 200,
    }),
    'image-upload': () => {
      const bytes = withComment(baseJpeg, `soak upload ${process.pid} ${uploads++} ${Math.random()}`);
      return {
        kind: 'image-upload', target: 'site', method: 'POST', path: '/apps/api/media/upload',
        headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, cookie: any(data.visitorCookies) },
        body: multipart([{ name: 'image', filename: 'screenshot.jpg', type: 'image/jpeg', bytes }]), expect: 200,
        stored: (body) => {
          const answer = JSON.parse(body.toString()) as { data?: { url?: string; webpUrl?: string } };
          if (!answer.data?.url || !answer.data.webpUrl) return null;
          const webp = new URL(answer.data.webpUrl).pathname;
          return {
            path: new URL(answer.data.url).pathname,
            sha256: sha256(bytes),
            next: { kind: 'preview', target: 'img', method: 'GET', path: webp, headers: {}, expect: 200 },
          };
        },
      };
    },
    'package-upload': () => {
      const plugin = any(data.hosted);
      const version = `9.${process.pid}.${uploads++}-soak`;
      // The site reads the package's manifest (issue 31): it names the plugin and this version.
      const bytes = pluginZip(plugin.id, version, [{ name: 'plugin.bin', data: randomBytes(PACKAGE_BYTES), method: 0 }]);
      return {
        kind: 'package-upload', target: 'site', method: 'POST', path: `/apps/api/plugins/${encodeURIComponent(plugin.id)}/versions`,
        headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, cookie: plugin.authorCookie },
        body: multipart([
          { name: 'version', value: version },
          { name: 'changelog', value: 'Uploaded during the soak.' },
          { name: 'file', filename: `${plugin.id}.zip`, type: 'application/zip', bytes },
        ]),
        expect: 201,
        stored: (body) => {
          const answer = JSON.parse(body.toString()) as { version?: { download?: string } };
          return answer.version?.download ? { path: new URL(answer.version.download).pathname, sha256: sha256(bytes) } : null;
        },
      };
    },
  };

  return {
    launchers,
    pick() {
      let draw = Math.random() * total;
      for (const kind of kinds) {
        draw -= MIX[kind];
        if (draw < 0) return build[kind]();
      }
      return build.info();
    },
  };
}

type Part = { name: string; value: string } | { name: string; filename: string; type: string; bytes: Buffer };

function multipart(parts: Part[]): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    if ('value' in part) {
      chunks.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${part.name}"\r\n\r\n${part.value}\r\n`));
    } else {
      chunks.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${part.name}"; filename="${part.filename}"\r\nContent-Type: ${part.type}\r\n\r\n`));
      chunks.push(part.bytes, Buffer.from('\r\n'));
    }
  }
  chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

