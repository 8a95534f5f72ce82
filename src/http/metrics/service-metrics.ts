import type { Handler } from '../context.js';
import type { Feature } from '../feature.js';
import { renderSamples, type Sample } from './exposition.js';
import { createHttpMetrics, type HttpMetrics } from './http-metrics.js';
import { metricsHandler } from './metrics-route.js';

/**
 * A service's /metrics: its request counters (handed to createApp) and the handler
 * that renders them with what each feature, and the service itself, reports.
 * Without METRICS_TOKEN nothing is counted at all and the route answers 404.
 */
export function serviceMetrics<L extends object>(
  token: string | undefined,
  features: readonly Feature<L>[],
  ...more: Array<() => Sample[] | Promise<Sample[]>>
): { http: HttpMetrics | undefined; handler: Handler<L> } {
  const http = token === undefined ? undefined : createHttpMetrics();
  const sources = [...features.flatMap((feature) => (feature.metrics ? [() => feature.metrics!()] : [])), ...more];
  // One source after another: one that reads PostgreSQL at scrape time (a queue
  // depth) is done before the pool's own use is read (`more` comes last), so the
  // scrape does not count its own queries as the pool's load.
  const render = async () => {
    const samples = processSamples();
    for (const source of sources) samples.push(...(await source()));
    return http!.render() + renderSamples(samples);
  };
  return { http, handler: metricsHandler<L>(token, render) };
}

function processSamples(): Sample[] {
  const memory = process.memoryUsage();
  return [
    { name: 'process_resident_memory_bytes', help: 'Resident memory of this process', type: 'gauge', value: memory.rss },
    { name: 'nodejs_heap_used_bytes', help: 'V8 heap in use', type: 'gauge', value: memory.heapUsed },
    { name: 'process_uptime_seconds', help: 'Seconds since this process started', type: 'gauge', value: Math.round(process.uptime()) },
  ];
}
