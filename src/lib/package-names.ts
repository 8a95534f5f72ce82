// A package's URL is /pkg/<sha256>/<name>.zip. The hash alone selects the file; the
// name is what a browser saves it as, so it is reduced to characters that are safe
// in a path and in Content-Disposition on every system. Both services use it: the
// image host hands the URLs out and serves them, the site names a version's download
// once its form has given the version number.

const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}\.zip$/;
const DEFAULT_NAME = 'package';

/** `name` (the uploader's, any text) as a safe file stem: letters, digits, dot, dash, underscore. */
export function safeStem(name: string | null | undefined): string {
  const stem = (name ?? '').replace(/\.zip$/i, '').replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '').slice(0, 96);
  return stem === '' ? DEFAULT_NAME : stem;
}

export function packageUrl(sha256: string, name: string | null | undefined): string {
  return `/pkg/${sha256}/${safeStem(name)}.zip`;
}

/** True for a name this host hands out (the route refuses anything else with 404). */
export function isPackageFileName(name: string): boolean {
  return FILE_NAME.test(name);
}
