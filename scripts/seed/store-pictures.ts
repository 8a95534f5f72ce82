import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import type { Logger } from '../../src/lib/log.js';
import { FORMATS, sniffFormat } from '../../src/services/imghost/images/formats.js';
import { openImageStore } from '../../src/services/imghost/images/store.js';
import type { SeedPictureFiles } from './pictures.js';

// Where the seed's pictures go: to the image host the site uses (IMAGE_HOST_URL),
// through its upload API (with IMGHOST_UPLOAD_TOKEN when set), when it answers;
// else, as when `npm run seed` runs before `npm start`, straight into the folder
// that image host will serve (DATA_DIR/images), through its own store module (the
// same checks-free commit an upload ends with: fsync, rename, content-addressed).
// Either way the plugins name each picture by its in-site path, /img/<ts>/<md5>,
// which the site redirects to the image host: plugin images must be https or
// in-site, and under `npm start` the image host is plain http.

export interface SeedPicture {
  /** In-site path of the original. */
  url: string;
  /** In-site path of its WebP preview. */
  webpUrl: string;
}

export interface SeedPictures {
  icons: SeedPicture[];
  screenshots: SeedPicture[];
  avatars: SeedPicture[];
}

export type PictureTarget = { kind: 'upload'; url: string; token: string | undefined } | { kind: 'folder'; imagesDir: string; log: Logger };

/** The image host when it answers /healthz within 2 s, else its folder. */
export async function pictureTarget(imageHostUrl: string, token: string | undefined, imagesDir: string, log: Logger): Promise<PictureTarget> {
  const answered = await fetch(`${imageHostUrl}/healthz`, { signal: AbortSignal.timeout(2000) }).then((res) => res.ok, () => false);
  return answered ? { kind: 'upload', url: imageHostUrl, token } : { kind: 'folder', imagesDir, log };
}

export async function storePictures(files: SeedPictureFiles, target: PictureTarget): Promise<SeedPictures> {
  const put = target.kind === 'upload' ? uploader(target.url, target.token) : await folderWriter(target.imagesDir, target.log);
  try {
    // A few at once: the image host checks each upload on its decode threads.
    const all = async (list: Buffer[]) => {
      const stored: SeedPicture[] = [];
      for (let i = 0; i < list.length; i += 4) stored.push(...(await Promise.all(list.slice(i, i + 4).map((bytes) => put.store(bytes)))));
      return stored;
    };
    return { icons: await all(files.icons), screenshots: await all(files.screenshots), avatars: await all(files.avatars) };
  } finally {
    await put.close();
  }
}

const named = (timestamp: number, md5: string): SeedPicture => ({ url: `/img/${timestamp}/${md5}`, webpUrl: `/img/${timestamp}/${md5}.webp` });

function uploader(base: string, token: string | undefined) {
  return {
    async store(bytes: Buffer): Promise<SeedPicture> {
      const form = new FormData();
      form.append('image', new Blob([new Uint8Array(bytes)]), 'seed.' + FORMATS[sniffFormat(bytes)!].ext);
      const res = await fetch(`${base}/api/upload`, {
        method: 'POST',
        body: form,
        headers: token === undefined ? {} : { Authorization: `Bearer ${token}` },
        signal: AbortSignal.timeout(30_000),
      });
      const text = await res.text();
      if (res.status === 401) throw new Error(`the image host at ${base} refused the upload token: set IMGHOST_UPLOAD_TOKEN as it has it`);
      if (res.status !== 200) throw new Error(`the image host at ${base} answered ${res.status} to an upload: ${text.slice(0, 200)}`);
      const { data } = JSON.parse(text) as { data: { timestamp: number; md5: string } };
      return named(data.timestamp, data.md5);
    },
    close: async () => {},
  };
}

async function folderWriter(imagesDir: string, log: Logger) {
  const store = await openImageStore(imagesDir, log);
  const timestamp = Date.now();
  return {
    async store(bytes: Buffer): Promise<SeedPicture> {
      const format = sniffFormat(bytes)!;
      const md5 = createHash('md5').update(bytes).digest('hex');
      const temp = store.temps.create(FORMATS[format].ext);
      try {
        await writeFile(temp, bytes, { flag: 'wx' });
        await store.commitOriginal(temp, md5, format, bytes.length);
      } catch (error) {
        await store.temps.discard(temp);
        throw error;
      }
      return named(timestamp, md5);
    },
    close: () => store.temps.close(),
  };
}
