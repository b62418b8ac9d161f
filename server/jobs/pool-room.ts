// How many jobs of each business a pool's claim may take (runner.ts jobPool, claim.ts
// ClaimTurns.room): one business holds at most half of the places. With `slowMs` (the webhook
// pool), a business must also show that its jobs end in time before it gets that half, and loses
// it while they do not, so that businesses whose endpoints hang cannot fill the pool between them:
// - a business with no job seen yet (or forgotten) runs one job at a time until one ends within
//   `slowMs`;
// - a business is slow while one of its jobs has been running for `slowMs` or longer, and after
//   its last job took that long (an attempt that timed out); slow businesses run one job each,
//   and all of them together hold at most half of the places;
// - a business whose last job ended within `slowMs` holds up to half of the places.
// The other half of the pool therefore always stays with businesses whose endpoints answer.

/** Businesses whose last verdict is kept; the oldest are forgotten beyond it (they start again with one job). */
const REMEMBERED = 10_000;

export interface PoolRoomOptions {
  /** The pool's places. */
  size: () => number;
  /** Places a job usually holds (claims are counted in such jobs). */
  usual: () => number;
  /** A job running this long (ms) makes its business slow; none: every business may hold half at once. */
  slowMs?: number;
  now?: () => number;
}

/** A job holding places: when it started and how many it holds. */
interface Held {
  at: number;
  places: number;
}

export class PoolRoom {
  /** The jobs in flight, per business (a business without any has no entry). */
  private jobs = new Map<string, Set<Held>>();
  /** Whether the business's last job ended within slowMs (insertion order: oldest first). */
  private lastFast = new Map<string, boolean>();
  /** Places the slow businesses may still take in the current claim. */
  private slowBudget: number | null = null;
  private readonly now: () => number;

  constructor(private readonly o: PoolRoomOptions) {
    this.now = o.now ?? Date.now;
  }

  /** Places the business holds. */
  private held(businessId: string): number {
    let n = 0;
    for (const job of this.jobs.get(businessId) ?? []) n += job.places;
    return n;
  }

  /** Places held in all. */
  get used(): number {
    let n = 0;
    for (const b of this.jobs.keys()) n += this.held(b);
    return n;
  }

  /** A business may hold at most this many places (at least one job's). */
  private most(): number {
    return Math.max(1, Math.floor(this.o.size() / 2));
  }

  private usual(): number {
    return Math.max(1, this.o.usual());
  }

  /** Slow: a job of it has been running for slowMs, or its last job took that long. */
  slow(businessId: string): boolean {
    const ms = this.o.slowMs;
    if (ms === undefined) return false;
    if (this.lastFast.get(businessId) === false) return true;
    const since = this.now() - ms;
    for (const job of this.jobs.get(businessId) ?? []) if (job.at <= since) return true;
    return false;
  }

  /** Call before each claim: the slow businesses' share of it is computed afresh. */
  beginClaim(): void {
    this.slowBudget = null;
  }

  /** Jobs (of the usual weight) of the business the current claim may take. */
  room(businessId: string): number {
    const held = this.held(businessId);
    const usual = this.usual();
    const slow = this.slow(businessId);
    const answersInTime = this.o.slowMs === undefined || this.lastFast.get(businessId) === true;
    if (answersInTime && !slow) return Math.floor((this.most() - held) / usual);
    if (held > 0) return 0; // one job at a time, until it shows it ends in time
    if (!slow) return 1;
    // Slow: one job, within what the slow businesses together may still hold.
    if (this.slowBudget === null) {
      let slowHeld = 0;
      for (const b of this.jobs.keys()) if (this.slow(b)) slowHeld += this.held(b);
      this.slowBudget = this.most() - slowHeld;
    }
    if (this.slowBudget < usual) return 0;
    this.slowBudget -= usual;
    return 1;
  }

  /**
   * A job of the business started holding `places`. The returned function gives them back when
   * it ends, with how long it took for the business's verdict (default: since it started; null:
   * the job says nothing of its business's speed, as a delivery job that posted nothing).
   */
  hold(businessId: string, places: number): (tookMs?: number | null) => void {
    const job: Held = { at: this.now(), places };
    const jobs = this.jobs.get(businessId) ?? new Set<Held>();
    jobs.add(job);
    this.jobs.set(businessId, jobs);
    return (tookMs) => {
      jobs.delete(job);
      if (!jobs.size) this.jobs.delete(businessId);
      if (this.o.slowMs === undefined || tookMs === null) return;
      const fast = (tookMs ?? this.now() - job.at) < this.o.slowMs;
      this.lastFast.delete(businessId);
      this.lastFast.set(businessId, fast);
      if (this.lastFast.size > REMEMBERED) this.lastFast.delete(this.lastFast.keys().next().value as string);
    };
  }
}
