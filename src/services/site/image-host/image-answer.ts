import { AnswerShapeError, successData } from './answer.js';

// What the image host's answer to an image upload must look like, and what the
// site hands out from it: URLs a store page and every launcher will show.

/** The `data` of a successful upload through the site: URLs absolute under IMAGE_HOST_PUBLIC_URL. */
export interface UploadedImage {
  url: string;
  webpUrl: string;
  timestamp: number;
  md5: string;
  filename: string;
}

/**
 * An in-host path (one leading `/`, not `//`) of plain URL characters. Nothing to
 * escape and nothing that could turn `base + path` into another host's URL.
 */
const IN_HOST_PATH = /^\/(?![/\\])[A-Za-z0-9._~!$&'()*+,;=:@%/-]{0,1023}$/;
const MD5 = /^[0-9a-f]{32}$/;
const FILENAME = /^[A-Za-z0-9._-]{1,255}$/;

/**
 * The upload answer `{success: true, data: {url, webpUrl, timestamp, md5, filename}}`
 * with both URLs made absolute under `publicBase` (which has no trailing slash, and
 * may carry a path of its own: a prefix behind a proxy is kept).
 */
export function uploadedImageFrom(answer: unknown, publicBase: string): UploadedImage {
  const { url, webpUrl, timestamp, md5, filename } = successData(answer);
  if (typeof url !== 'string' || !IN_HOST_PATH.test(url)) throw new AnswerShapeError('data.url is not a path on the image host');
  if (typeof webpUrl !== 'string' || !IN_HOST_PATH.test(webpUrl)) throw new AnswerShapeError('data.webpUrl is not a path on the image host');
  if (typeof timestamp !== 'number' || !Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new AnswerShapeError('data.timestamp is not a whole number');
  }
  if (typeof md5 !== 'string' || !MD5.test(md5)) throw new AnswerShapeError('data.md5 is not 32 lower-case hex digits');
  if (typeof filename !== 'string' || !FILENAME.test(filename)) throw new AnswerShapeError('data.filename is not a plain file name');
  return { url: publicBase + url, webpUrl: publicBase + webpUrl, timestamp, md5, filename };
}
