import type { IconCatalog } from './icon-catalog.js';
import { iconProcessingFailed, rendererBusy } from './icon-errors.js';
import type { IconFile } from './icon-files.js';
import type { IconQuery } from './icon-query.js';
import {
  ICON_CACHE_CONTROL,
  MAX_QUEUED_PNG_RENDERS,
  RENDER_CACHE_MAX_BYTES,
  RENDER_CACHE_MAX_ENTRIES,
  SVG_CSP,
} from './limits.js';
import { createLru } from '../../../lib/lru.js';
import { MAX_CONCURRENT_PNG_RENDERS } from '../thread-budget.js';
import { svgToPng } from './png.js';
import { createSingleFlight } from '../../../lib/single-flight.js';
import { renderSvg } from './svg-template.js';
import { QueueFullError, createTaskQueue } from '../../../lib/task-queue.js';
import { prepareAnswer, strongEtag, type PreparedAnswer } from '../../../http/answer/index.js';

// Finished answers, ready to write: a repeated request is one Map lookup away from
// its bytes. PNGs are made by sharp behind a small queue (a burst of distinct sizes
// waits its turn instead of rasterizing all at once), and identical concurrent misses
// share one render.

/** Built once per entry, not per request: bytes, ETag and headers. */
export type RenderedIcon = PreparedAnswer;

/** What every icon answer carries besides its ETag; icons are small or PNG: not compressed. */
export const ICON_ANSWER = { cacheControl: ICON_CACHE_CONTROL, headers: { 'Content-Security-Policy': SVG_CSP }, compressMinBytes: Infinity } as const;

export interface IconFiles {
  get(fileName: string): IconFile | Promise<IconFile>;
}

export function renderKey(fileName: string, query: IconQuery): string {
  return `${fileName}\u0000${query.color}\u0000${query.format}\u0000${query.size}`;
}

export function createIconRenderer(catalog: IconCatalog, files: IconFiles) {
  const cache = createLru<RenderedIcon>({ maxEntries: RENDER_CACHE_MAX_ENTRIES, maxBytes: RENDER_CACHE_MAX_BYTES });
  const singleFlight = createSingleFlight<RenderedIcon>();
  const pngQueue = createTaskQueue({ concurrency: MAX_CONCURRENT_PNG_RENDERS, maxWaiting: MAX_QUEUED_PNG_RENDERS });
  catalog.onChange(() => cache.clear());

  const render = async (key: string, fileName: string, query: IconQuery, generation: number): Promise<RenderedIcon> => {
    const file = await files.get(fileName);
    const svg = renderSvg(file.template, query.color);
    let body: Buffer;
    if (query.format === 'svg') {
      body = Buffer.from(svg);
    } else {
      try {
        body = await pngQueue.run(() => svgToPng(svg, query.size));
      } catch (error) {
        throw error instanceof QueueFullError ? rendererBusy() : iconProcessingFailed(error);
      }
    }
    const etag = strongEtag(key, file.version);
    const contentType = query.format === 'svg' ? 'image/svg+xml' : 'image/png';
    const rendered = prepareAnswer(body, { ...ICON_ANSWER, contentType, etag });
    if (catalog.generation === generation) cache.set(key, rendered, body.length + key.length + 256);
    return rendered;
  };

  return {
    cached: (key: string) => cache.get(key),
    render(key: string, fileName: string, query: IconQuery): Promise<RenderedIcon> {
      const generation = catalog.generation;
      return singleFlight(`${generation}\u0000${key}`, () => render(key, fileName, query, generation));
    },
  };
}
