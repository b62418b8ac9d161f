// Request coalescing ("group commit") for the hottest statements: concurrent callers of one
// statement share a round trip. Every call joins the next batch; a batch starts once the
// current turn of the event loop has handed in its calls (setImmediate), and at most
// `maxInFlight` batches run at once: under load, the calls that arrive while a batch is in
// flight form the next one, so batches grow with the load and an idle process adds no wait.
//
// What a caller gets is exactly what its own statement would have given it:
// - a batch starts after every call in it was made, so it reads the database as of a moment after
//   each call began (an API key revoked before a request arrived is refused: no stale sharing);
// - a batch is one statement, so each caller's rows commit (or not) with the batch, before any
//   caller is answered;
// - when a batch fails, each of its calls is run again alone, so one caller's bad input (or a
//   conflict) fails that caller only.
// `REQUEST_COALESCING=0` runs every call alone (for side-by-side measurements).
import { env } from "../shared/env";

export interface CoalesceOptions<I> {
  /** Batches of this statement running at once (pooled connections it may hold). */
  maxInFlight: number;
  /** Upper bound of one batch, in the unit of `weight` (rows of the statement). */
  maxWeight: number;
  /** A call's weight (default 1). */
  weight?: (call: I) => number;
}

interface Entry<I, O> {
  call: I;
  resolve: (o: O) => void;
  reject: (e: unknown) => void;
}

const off = () => env.requestCoalescingOff;

/**
 * Wraps `runBatch` (one statement for many calls; answers one result per call, in order) into a
 * function of one call.
 */
export function coalescer<I, O>(runBatch: (calls: I[]) => Promise<O[]>, options: CoalesceOptions<I>): (call: I) => Promise<O> {
  const weight = options.weight ?? (() => 1);
  const pending: Entry<I, O>[] = [];
  let inFlight = 0;
  let scheduled = false;

  /** Runs a batch; when it fails, each of its calls alone (a call alone that fails is rejected). */
  const run = async (batch: Entry<I, O>[]): Promise<void> => {
    let out: O[];
    try {
      out = await runBatch(batch.map((e) => e.call));
      if (out.length !== batch.length) throw new Error(`coalescer: ${out.length} results for ${batch.length} calls`);
    } catch (err) {
      if (batch.length === 1) batch[0].reject(err);
      else await Promise.all(batch.map((e) => run([e])));
      return;
    }
    batch.forEach((e, i) => e.resolve(out[i]));
  };

  const flush = () => {
    scheduled = false;
    while (inFlight < options.maxInFlight && pending.length > 0) {
      let w = 0;
      let n = 0;
      while (n < pending.length && (n === 0 || w + weight(pending[n].call) <= options.maxWeight)) w += weight(pending[n++].call);
      const batch = pending.splice(0, n);
      inFlight++;
      void run(batch).finally(() => {
        inFlight--;
        schedule();
      });
    }
  };

  const schedule = () => {
    if (scheduled || inFlight >= options.maxInFlight || pending.length === 0) return;
    scheduled = true;
    setImmediate(flush);
  };

  return (call: I) => {
    if (off()) return runBatch([call]).then((out) => out[0]);
    return new Promise<O>((resolve, reject) => {
      pending.push({ call, resolve, reject });
      schedule();
    });
  };
}
