import { familyHead, formatNumber, labelValue } from './exposition.js';

// Requests by route pattern and status, and their durations, for /metrics.
//
// Counting runs on every request, launchers polling /api/info included, so it is
// made to cost next to nothing: each route gets its own RouteMeter when the route
// table is compiled, the router hands it over with the route, and a finished
// request adds to that object's arrays by index (status, bucket). No label string,
// no Map keyed on request data. The label set is bounded by the route table: a
// path no route takes counts under one "unmatched" meter, never under its raw path.

/** Upper bounds of the duration histogram, in seconds (Prometheus's defaults, plus 1 ms). */
export const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

/** Node accepts status codes 100 to 999; each gets a slot. */
const STATUS_SLOTS = 1000;

export class RouteMeter {
  /** Requests by status code; allocated on the first request, so unused routes cost nothing. */
  statuses: Float64Array | undefined = undefined;
  /** Requests per duration bucket (not cumulative; the last slot is above the largest bound). */
  readonly buckets = new Float64Array(DURATION_BUCKETS.length + 1);
  count = 0;
  sumSeconds = 0;

  constructor(
    readonly method: string,
    readonly route: string,
  ) {}

  observe(status: number, ms: number): void {
    const statuses = (this.statuses ??= new Float64Array(STATUS_SLOTS));
    statuses[status >= 0 && status < STATUS_SLOTS ? status : 0]!++;
    const seconds = ms / 1000;
    let bucket = 0;
    while (bucket < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[bucket]!) bucket++;
    this.buckets[bucket]!++;
    this.count++;
    this.sumSeconds += seconds;
  }
}

/** The label route takes for requests no route takes (404, 405, a malformed target). */
export const UNMATCHED_ROUTE = 'unmatched';

export function createHttpMetrics() {
  const meters: RouteMeter[] = [];
  const unmatched = new RouteMeter('', UNMATCHED_ROUTE);

  return {
    /** The meter of one route of the table; called once per route, at start-up. */
    meterFor(method: string, route: string): RouteMeter {
      const meter = new RouteMeter(method.toUpperCase(), route);
      meters.push(meter);
      return meter;
    },
    unmatched,
    render(): string {
      const all = [...meters, unmatched];
      let requests = familyHead('http_requests_total', 'Requests answered, by route pattern and status', 'counter');
      let durations = familyHead('http_request_duration_seconds', 'Time from the request to the end of its answer, by route pattern', 'histogram');
      for (const meter of all) {
        const labels = `method="${labelValue(meter.method)}",route="${labelValue(meter.route)}"`;
        const statuses = meter.statuses;
        if (statuses) {
          for (let status = 0; status < STATUS_SLOTS; status++) {
            if (statuses[status]) requests += `http_requests_total{${labels},status="${status}"} ${statuses[status]}\n`;
          }
        }
        if (meter.count === 0) continue;
        let cumulative = 0;
        for (let bucket = 0; bucket < DURATION_BUCKETS.length; bucket++) {
          cumulative += meter.buckets[bucket]!;
          durations += `http_request_duration_seconds_bucket{${labels},le="${DURATION_BUCKETS[bucket]}"} ${cumulative}\n`;
        }
        durations += `http_request_duration_seconds_bucket{${labels},le="+Inf"} ${meter.count}\n`;
        durations += `http_request_duration_seconds_sum{${labels}} ${formatNumber(meter.sumSeconds)}\n`;
        durations += `http_request_duration_seconds_count{${labels}} ${meter.count}\n`;
      }
      return requests + durations;
    },
  };
}

export type HttpMetrics = ReturnType<typeof createHttpMetrics>;
