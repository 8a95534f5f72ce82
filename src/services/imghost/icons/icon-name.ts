import { MAX_ICON_NAME_LENGTH } from './limits.js';

// Names are checked against a closed alphabet before anything else, and then only
// looked up in the in-memory list: a client name is never joined to a folder path.
// `.`, `_`, `-` are allowed, so `..` passes the alphabet, but no listed file is
// called `...svg` in practice, and if one were, it is a file inside the folder.

const REQUEST_NAME = /^[A-Za-z0-9._-]+$/;
/** What a listed file must be called; others in the folder are not served. */
const FILE_NAME = /^[A-Za-z0-9._-]+\.svg$/;

export function isIconFileName(name: string): boolean {
  return name.length <= MAX_ICON_NAME_LENGTH && FILE_NAME.test(name);
}

/**
 * The file names a requested name may mean, most specific first: `home` means
 * `home.svg`; `home.svg` means itself (or, failing that, a file `home.svg.svg`).
 * Empty when the name is not acceptable at all.
 */
export function iconFileCandidates(name: string): string[] {
  if (name.length === 0 || name.length > MAX_ICON_NAME_LENGTH || !REQUEST_NAME.test(name)) return [];
  return name.endsWith('.svg') ? [name, name + '.svg'] : [name + '.svg'];
}
