// createClient: the service's SDK routes with retries, idempotency keys, paging and job polling.
//
// Retries: a 429 or 5xx answer, or a network failure, is retried (default 3 times) after the
// Retry-After the service sent, else after an exponential backoff with jitter. Every POST that
// creates something carries an Idempotency-Key generated once per logical call and reused by its
// retries, so a retry after a lost answer never records the work twice.
import { ConnectionError, errorFor, JobTimeoutError, type ReferralApiError } from "./errors.js";
import type {
  ApplyReferralProcessedResponse,
  ApplyReferralQueuedResponse,
  ApplyReferralRequest,
  CreatePortalSessionRequest,
  Job,
  Participant,
  PortalSession,
  ReferralPage,
  TrackBatchRequest,
  TrackBatchResponse,
  TrackProcessedResponse,
  TrackQueuedResponse,
  TrackRequest,
  UpsertParticipantRequest,
} from "./types.js";

export type Referral = ReferralPage["data"][number];
export type TrackResponse = TrackProcessedResponse | TrackQueuedResponse;
export type ApplyReferralResponse = ApplyReferralProcessedResponse | ApplyReferralQueuedResponse;
export type TrackEvent = TrackBatchRequest["events"][number];

export interface ClientOptions {
  /** An API key: rk_test_… or rk_live_… */
  apiKey: string;
  /** The service's base URL, e.g. https://referrals.example.com */
  baseUrl: string;
  /** Retries after a 429, a 5xx or a network failure (default 3). */
  maxRetries?: number;
  /** Longest wait between attempts, in ms, whatever Retry-After says (default 30 000). */
  maxRetryDelayMs?: number;
  /** Timeout of one attempt, in ms (default 30 000). */
  timeoutMs?: number;
  /** A fetch implementation (default: the platform's). */
  fetch?: typeof fetch;
}

export interface RequestOptions {
  /** Overrides the generated idempotency key (POST routes that support one). */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface WaitOptions {
  /** Give up after this many ms (default 60 000) with a JobTimeoutError. */
  timeoutMs?: number;
  /** First polling interval (default 200 ms), growing ×1.5 up to 5 s. */
  intervalMs?: number;
  signal?: AbortSignal;
}

export interface ReferralClient {
  /** POST /track: processed now (200) or queued (202, with jobId). */
  track(body: TrackRequest, options?: RequestOptions): Promise<TrackResponse>;
  /** POST /track/batch: up to 100 events; each gets an idempotency key unless it has one. */
  trackBatch(events: TrackEvent[], options?: RequestOptions): Promise<TrackBatchResponse>;
  /** POST /sdk/referrals/apply */
  applyReferral(body: ApplyReferralRequest, options?: RequestOptions): Promise<ApplyReferralResponse>;
  /** GET /sdk/referrals, every page: `for await (const r of client.listReferrals())`. */
  listReferrals(options?: { limit?: number; signal?: AbortSignal }): AsyncIterableIterator<Referral>;
  /** POST /sdk/participants */
  upsertParticipant(body: UpsertParticipantRequest, options?: RequestOptions): Promise<Participant>;
  /**
   * POST /sdk/participants/portal-sessions (secret key, on your server): a link that opens one
   * participant's portal (send the browser to `url`) and its bearer token for /portal/api/*.
   */
  createPortalSession(body: CreatePortalSessionRequest, options?: { signal?: AbortSignal }): Promise<PortalSession>;
  /** DELETE /sdk/participants/portal-sessions/:token: ends a portal session at once. */
  revokePortalSession(token: string, options?: { signal?: AbortSignal }): Promise<void>;
  /** GET /sdk/jobs/:jobId */
  getJob(jobId: string, options?: { signal?: AbortSignal }): Promise<Job>;
  /** Polls getJob with backoff until the job is SUCCEEDED or FAILED. */
  waitForJob(jobId: string, options?: WaitOptions): Promise<Job>;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const aborted = () => (signal?.reason instanceof Error ? signal.reason : new Error("Aborted"));
    if (signal?.aborted) return reject(aborted());
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(t), reject(aborted())), { once: true });
  });

/** Retry-After as seconds or an HTTP date → ms; undefined when absent or unreadable. */
function retryAfterMs(value: string | null): number | undefined {
  if (!value) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Math.ceil(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** One attempt's signal: its timeout, and the caller's abort if any. */
function attemptSignal(timeoutMs: number, outer?: AbortSignal): AbortSignal {
  const ctl = new AbortController();
  const t = setTimeout(() => ctl.abort(new Error(`Timed out after ${timeoutMs} ms`)), timeoutMs);
  (t as { unref?: () => void }).unref?.();
  if (outer) {
    if (outer.aborted) ctl.abort(outer.reason);
    else outer.addEventListener("abort", () => ctl.abort(outer.reason), { once: true });
  }
  return ctl.signal;
}

function newIdempotencyKey(): string {
  const c = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (c?.randomUUID) return `sdk_${c.randomUUID()}`;
  return `sdk_${Date.now().toString(36)}_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
}

export function createClient(options: ClientOptions): ReferralClient {
  if (!options?.apiKey) throw new TypeError("createClient: apiKey is required");
  if (!options.baseUrl) throw new TypeError("createClient: baseUrl is required");
  const base = options.baseUrl.replace(/\/+$/, "");
  const maxRetries = options.maxRetries ?? 3;
  const maxDelay = options.maxRetryDelayMs ?? 30_000;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const doFetch = options.fetch ?? globalThis.fetch;
  if (typeof doFetch !== "function") throw new TypeError("createClient: no fetch available; pass options.fetch");

  async function call<T>(method: "GET" | "POST" | "DELETE", path: string, init: { body?: unknown; idempotencyKey?: string; signal?: AbortSignal } = {}): Promise<{ status: number; body: T }> {
    const headers: Record<string, string> = { accept: "application/json", "x-api-key": options.apiKey };
    if (init.body !== undefined) headers["content-type"] = "application/json";
    if (init.idempotencyKey) headers["idempotency-key"] = init.idempotencyKey;
    const payload = init.body === undefined ? undefined : JSON.stringify(init.body);
    let lastError: ReferralApiError | undefined;
    for (let attempt = 0; attempt <= maxRetries; attempt++) {
      if (attempt > 0) {
        const hinted = lastError?.retryAfter !== undefined ? lastError.retryAfter * 1000 : undefined;
        // Asked to wait longer than this client waits: retrying sooner would only be refused again.
        if (hinted !== undefined && hinted > maxDelay) throw lastError!;
        const backoff = Math.min(maxDelay, 250 * 2 ** (attempt - 1)) * (0.75 + Math.random() * 0.5);
        await sleep(Math.min(maxDelay, hinted ?? backoff), init.signal);
      }
      const signal = attemptSignal(timeoutMs, init.signal);
      let res: Response;
      try {
        // Redirects are not followed: a 3xx would send the API key (and the body) wherever it points.
        res = await doFetch(`${base}${path}`, { method, headers, body: payload, signal, redirect: "manual" });
      } catch (e) {
        if (init.signal?.aborted) throw e;
        lastError = new ConnectionError({ status: 0, code: "CONNECTION_ERROR", message: `Request to ${path} failed: ${(e as Error)?.message ?? e}` });
        continue;
      }
      if (res.type === "opaqueredirect" || (res.status >= 300 && res.status < 400)) {
        throw new ConnectionError({ status: res.status, code: "UNEXPECTED_REDIRECT", message: `${method} ${path} answered a redirect${res.headers.get("location") ? ` to ${res.headers.get("location")}` : ""}: check baseUrl (the API key is never sent on)` });
      }
      const text = await res.text();
      let parsed: unknown = undefined;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        /* not JSON */
      }
      if (res.ok) return { status: res.status, body: parsed as T };
      const err = (parsed as { error?: { code?: string; message?: string; details?: unknown } } | undefined)?.error;
      const wait = retryAfterMs(res.headers.get("retry-after"));
      lastError = errorFor({
        status: res.status,
        code: err?.code ?? `HTTP_${res.status}`,
        message: err?.message ?? `${method} ${path} answered ${res.status}`,
        details: err?.details,
        retryAfter: wait === undefined ? undefined : wait / 1000,
      });
      if (res.status !== 429 && res.status < 500) throw lastError;
    }
    throw lastError!;
  }

  const client: ReferralClient = {
    async track(body, opts = {}) {
      // The body's own idempotencyKey wins; otherwise one key for this call and all its retries.
      const key = body.idempotencyKey ? undefined : (opts.idempotencyKey ?? newIdempotencyKey());
      return (await call<TrackResponse>("POST", "/track", { body, idempotencyKey: key, signal: opts.signal })).body;
    },
    async trackBatch(events, opts = {}) {
      // Batches take idempotency per event: derive a key per event from one key per call.
      const batchKey = opts.idempotencyKey ?? newIdempotencyKey();
      const withKeys = events.map((e, i) => (e.idempotencyKey ? e : { ...e, idempotencyKey: `${batchKey}:${i}` }));
      return (await call<TrackBatchResponse>("POST", "/track/batch", { body: { events: withKeys }, signal: opts.signal })).body;
    },
    async applyReferral(body, opts = {}) {
      const key = body.idempotencyKey ? undefined : (opts.idempotencyKey ?? newIdempotencyKey());
      return (await call<ApplyReferralResponse>("POST", "/sdk/referrals/apply", { body, idempotencyKey: key, signal: opts.signal })).body;
    },
    async *listReferrals(opts = {}) {
      let cursor: string | null = null;
      do {
        const q = new URLSearchParams();
        if (opts.limit !== undefined) q.set("limit", String(opts.limit));
        if (cursor) q.set("cursor", cursor);
        const qs = q.toString();
        const page: ReferralPage = (await call<ReferralPage>("GET", `/sdk/referrals${qs ? `?${qs}` : ""}`, { signal: opts.signal })).body;
        for (const r of page.data) yield r;
        cursor = page.nextCursor;
      } while (cursor);
    },
    async upsertParticipant(body, opts = {}) {
      // An upsert is idempotent by userId/email: retries need no key.
      return (await call<Participant>("POST", "/sdk/participants", { body, signal: opts.signal })).body;
    },
    async createPortalSession(body, opts = {}) {
      // Each call makes a new token: a retried call at worst leaves an unused session that expires.
      return (await call<PortalSession>("POST", "/sdk/participants/portal-sessions", { body, signal: opts.signal })).body;
    },
    async revokePortalSession(token, opts = {}) {
      await call("DELETE", `/sdk/participants/portal-sessions/${encodeURIComponent(token)}`, { signal: opts.signal });
    },
    async getJob(jobId, opts = {}) {
      return (await call<Job>("GET", `/sdk/jobs/${encodeURIComponent(jobId)}`, { signal: opts.signal })).body;
    },
    async waitForJob(jobId, opts = {}) {
      const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
      let interval = opts.intervalMs ?? 200;
      for (;;) {
        const job = await client.getJob(jobId, { signal: opts.signal });
        if (job.status === "SUCCEEDED" || job.status === "FAILED") return job;
        if (Date.now() + interval > deadline) {
          throw new JobTimeoutError({ status: 0, code: "JOB_TIMEOUT", message: `Job ${jobId} is still ${job.status}`, details: { jobId, status: job.status } });
        }
        await sleep(interval, opts.signal);
        interval = Math.min(5_000, interval * 1.5);
      }
    },
  };
  return client;
}
