// A file on the image host is named by its SHA-256 (/pkg/<sha256>/<name>.zip), and
// the image host serves under that name only the bytes with that hash. So a download
// under IMAGE_HOST_PUBLIC_URL's /pkg/ carries its hash even when the record has none
// (an author's edit could drop `sha256` from an update that keeps a hosted file):
// install links of hosted files always give the launcher a hash to verify.

const PKG_PATH = /^\/pkg\/([0-9a-f]{64})\/[A-Za-z0-9][A-Za-z0-9._-]{0,99}\.zip$/;

/** `sha256`, else the hash a hosted `download` (under `publicBase`, no trailing slash) is named by, else null. */
export function hashOfDownload(download: string, sha256: string | null, publicBase: string): string | null {
  if (sha256) return sha256;
  if (!download.startsWith(`${publicBase}/pkg/`)) return null;
  return PKG_PATH.exec(download.slice(publicBase.length))?.[1] ?? null;
}
