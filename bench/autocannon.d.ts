// The part of autocannon's API that bench/run.ts uses (the package ships no types).
declare module "autocannon" {
  interface Options {
    url: string;
    method?: string;
    connections?: number;
    duration?: number;
    headers?: Record<string, string>;
    body?: string;
  }
  interface Histogram {
    average: number;
    p50: number;
    p90: number;
    p99: number;
    max: number;
  }
  interface Result {
    duration: number;
    "2xx": number;
    non2xx: number;
    errors: number;
    timeouts: number;
    requests: Histogram & { total: number };
    latency: Histogram;
  }
  function autocannon(opts: Options, cb: (err: Error | null, result: Result) => void): unknown;
  export default autocannon;
}
