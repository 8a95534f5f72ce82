// Every bound of the icon service in one place. Icons are small, named files; the
// limits are generous for them and small enough that a client cannot use the
// service to fill memory or the CPU.

/** Longest icon name accepted in /SF/{name}, `.svg` included. */
export const MAX_ICON_NAME_LENGTH = 128;
/** Longest `color` value looked at; the longest valid one is `lightgoldenrodyellow`. */
export const MAX_COLOR_LENGTH = 32;
/** Icon files larger than this are refused as broken rather than read into memory. */
export const MAX_ICON_FILE_BYTES = 512 * 1024;

export const DEFAULT_COLOR = 'black';

export const MIN_PNG_SIZE = 16;
export const MAX_PNG_SIZE = 1024;
export const DEFAULT_PNG_SIZE = 128;
/**
 * A PNG is `size` wide and as tall as the icon's aspect ratio says; this caps the
 * pixels of a very tall icon (sharp would otherwise render it in full).
 */
export const MAX_PNG_PIXELS = MAX_PNG_SIZE * MAX_PNG_SIZE * 4;
/** Renders waiting beyond this are refused with 503, so a burst cannot queue without bound. */
export const MAX_QUEUED_PNG_RENDERS = 256;

/** Rendered answers (SVG text and PNG bytes) kept in memory, bounded both ways. */
export const RENDER_CACHE_MAX_ENTRIES = 4096;
export const RENDER_CACHE_MAX_BYTES = 64 * 1024 * 1024;
/** Parsed icon files (recolouring templates), bounded both ways. */
export const SOURCE_CACHE_MAX_ENTRIES = 2048;
export const SOURCE_CACHE_MAX_BYTES = 16 * 1024 * 1024;

/** fs.watch events arrive in bursts (one per file of a copy): one rescan per burst. */
export const RESCAN_DEBOUNCE_MS = 100;
/**
 * fs.watch can miss events (network file systems, a folder replaced under it), so the
 * folder's mtime is also compared this often; a stat is cheap.
 */
export const POLL_INTERVAL_MS = 2_000;

/** Cache lifetime of icons and of the icon list; ETags make revalidation cheap. */
export const ICON_CACHE_CONTROL = 'public, max-age=86400';
export const LIST_CACHE_CONTROL = 'public, max-age=60';
/** An SVG opened directly must not run script or load anything (the icon may come from ICONS_DIR). */
export const SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox";
