import { validationFailed } from '../../../http/errors.js';
import { hostIsTrusted } from '../settings.js';

// Where a plugin's download may be for the Bloret launcher to take it. The launcher
// refuses an install request, and its store page the WHOLE store list, when one
// item's `download` is not https on a trusted host (Bloret-Launcher
// modules/plugin_install_request.py, validate_download_url, called for each item by
// normalize_listing in modules/plugin_store.py): one plugin on another host and
// players with default settings see no store at all. Players may trust more hosts
// (`plugin_store_trusted_hosts` in the launcher's config.json, read by
// get_trusted_hosts in the same file); DOWNLOAD_HOSTS is the operator's list.

/**
 * The launcher's DEFAULT_TRUSTED_HOSTS, in its order (Bloret-Launcher
 * modules/plugin_install_request.py): what a launcher with default settings accepts.
 */
export const LAUNCHER_DEFAULT_TRUSTED_HOSTS: readonly string[] = Object.freeze([
  'github.com',
  'www.github.com',
  'raw.githubusercontent.com',
  'objects.githubusercontent.com',
  'release-assets.githubusercontent.com',
  'cdn.jsdelivr.net',
  'gitee.com',
  'www.gitee.com',
  'gitlab.com',
  'www.gitlab.com',
  'bloret.com',
  'www.bloret.com',
  'store.bloret.com',
  'api.bloret.com',
]);

/** What the review page says of an outside link a launcher with default settings refuses. */
export const DEFAULT_LIST_WARNING = 'launchers with default settings refuse the whole store list while this plugin is listed';

/** The host name of an https download as the launcher reads it, or null when it has none. */
export function downloadHost(download: string): string | null {
  try {
    const url = new URL(download);
    return url.hostname === '' ? null : url.hostname.toLowerCase();
  } catch {
    return null;
  }
}

/**
 * A plugin's new `download` under DOWNLOAD_HOSTS (`hosts`, empty when unset: any
 * https host, as SPEC says): 400 VALIDATION_FAILED, field "download", elsewhere.
 */
export function requireDownloadHost(download: string | undefined, hosts: readonly string[]): void {
  if (download === undefined || hosts.length === 0) return;
  const host = downloadHost(download);
  if (host === null || !hostIsTrusted(host, hosts)) {
    throw validationFailed('download', `download must be on ${hosts.join(', ')} or a subdomain of one (got ${host ?? 'no host'}): launchers refuse other hosts`);
  }
}

/**
 * A `download` among the image host's packages (IMAGE_HOST_PUBLIC_URL's host, any
 * port, under its path's /pkg/, compared once each %XX is decoded and in lower
 * case, as a proxy in front may route it; dot segments resolved) reaches
 * a plugin by an upload the site reads and checks (versions/upload-route.ts),
 * never as a link an author types: the image host keeps the file of an upload
 * whose manifest was refused (another plugin's id, whose folder the launcher would
 * overwrite), and as an outside link it would be installed unchecked, without the
 * untrusted-host warning (hosted files get none) and with its hash in the install
 * link. Such a link is taken only when it already is the plugin's download or the
 * file of one of its pending or approved versions (`known`); 400 VALIDATION_FAILED,
 * field "download", otherwise.
 */
export async function requireKnownHostedDownload(
  download: string | undefined,
  imageHostPublicUrl: string,
  known: (download: string) => Promise<boolean>,
): Promise<void> {
  if (download === undefined || !isImageHostPackage(download, imageHostPublicUrl)) return;
  if (await known(download)) return;
  throw validationFailed('download', "download must not link to a package on the store's image host: upload the ZIP as a version of this plugin, which the store checks");
}

function isImageHostPackage(download: string, imageHostPublicUrl: string): boolean {
  const imageHost = new URL(imageHostPublicUrl);
  const host = downloadHost(download)?.replace(/\.$/, '');
  if (host !== imageHost.hostname.toLowerCase().replace(/\.$/, '')) return false;
  const decoded = (path: string) => path.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))).toLowerCase();
  const packages = `${decoded(imageHost.pathname).replace(/\/+$/, '')}/pkg/`;
  return decoded(new URL(download).pathname).startsWith(packages);
}

export interface DownloadWarning {
  code: 'untrusted-download-host';
  /** The record's field holding the link: `download`, or `pendingUpdate.download`. */
  field: string;
  host: string;
  message: string;
}

/** The warning of an outside link `download` (in `field`) a launcher with default settings refuses, else null. */
export function defaultListWarning(field: string, download: string, imageHostPublicUrl: string): DownloadWarning | null {
  const host = downloadHost(download);
  if (host === null || hostIsTrusted(host, LAUNCHER_DEFAULT_TRUSTED_HOSTS)) return null;
  // A hosted package is no outside link: where it is served is the operator's
  // choice, checked once at start-up against DOWNLOAD_HOSTS (settings.ts).
  if (download.startsWith(`${imageHostPublicUrl.replace(/\/+$/, '')}/pkg/`)) return null;
  return { code: 'untrusted-download-host', field, host, message: `${host} is not on the launcher's default trusted list: ${DEFAULT_LIST_WARNING}` };
}

/**
 * `warnings` of a record its author or an administrator reads (detail, and the
 * review queue's include=review): the live download and the one a pending update
 * proposes, each when it is an outside link launchers with default settings refuse.
 */
export function addDownloadWarnings(record: Record<string, unknown>, imageHostPublicUrl: string): void {
  const warnings: DownloadWarning[] = [];
  const live = defaultListWarning('download', String(record.download), imageHostPublicUrl);
  if (live) warnings.push(live);
  const update = record.pendingUpdate as Record<string, unknown> | null | undefined;
  if (typeof update?.download === 'string') {
    const proposed = defaultListWarning('pendingUpdate.download', update.download, imageHostPublicUrl);
    if (proposed) warnings.push(proposed);
  }
  record.warnings = warnings;
}
