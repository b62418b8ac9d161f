// Two in-process bounds on work in progress: slots per key (a caller over its share is told so
// at once, not queued) and a first-come-first-served gate (callers wait their turn).

/** At most `limit()` holders per key at once. */
export class KeyedSlots {
  private readonly held = new Map<string, number>();
  constructor(private readonly limit: () => number) {}

  /** A release function, or null when the key already holds every slot. */
  tryTake(key: string): (() => void) | null {
    const n = this.held.get(key) ?? 0;
    if (n >= this.limit()) return null;
    this.held.set(key, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.held.get(key) ?? 1) - 1;
      if (left > 0) this.held.set(key, left);
      else this.held.delete(key);
    };
  }
}

/** Runs at most `limit()` tasks at once (Infinity: no bound); the others wait in arrival order. */
export class FifoGate {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  constructor(private readonly limit: () => number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit()) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await task();
    } finally {
      // The slot passes straight to the next in line (active unchanged), or is freed.
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }

  get running(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.length;
  }
}
