// The part of autocannon's API that bench/run.ts and bench/session-reads.ts use (the package
// ships no types).
declare module "autocannon" {
  interface Options {
    url: string;
    method?: string;
    connections?: number;
    duration?: number;
    headers?: Record<string, string>;
    body?: string;
    /** Requests per second over all connections (autocannon corrects latencies for coordinated omission). */
    overallRate?: number;
    requests?: RequestSpec[];
  }
  interface RawRequest {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
  }
  /** Per-connection state shared by setupRequest and onResponse. */
  type Context = Record<string, unknown>;
  interface RequestSpec extends RawRequest {
    setupRequest?: (req: RawRequest, context: Context) => RawRequest;
    onResponse?: (status: number, body: string, context: Context) => void;
  }
  interface Histogram {
    average: number;
    p50: number;
    p90: number;
    p99: number;
    p97_5: number;
    max: number;
  }
  interface Result {
    duration: number;
    "2xx": number;
    "3xx": number;
    non2xx: number;
    errors: number;
    timeouts: number;
    requests: Histogram & { total: number };
    latency: Histogram;
  }
  function autocannon(opts: Options, cb: (err: Error | null, result: Result) => void): unknown;
  export default autocannon;
}
