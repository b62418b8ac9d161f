// Work to finish before the server process exits (e.g. buffered link clicks). Next.js answers
// SIGTERM/SIGINT by closing the HTTP server and calling process.exit; the exit waits here until
// every hook has run (at most SHUTDOWN_HOOK_TIMEOUT_MS), so what the answered requests left in
// memory is written first.
const TIMEOUT_MS = 10_000;

const g = globalThis as unknown as { __rtsShutdown?: { hooks: Set<() => Promise<void>>; running: Promise<void> | null } };

function runHooks(): Promise<void> {
  const s = g.__rtsShutdown!;
  s.running ??= Promise.race([
    Promise.allSettled([...s.hooks].map((h) => h())).then(() => undefined),
    new Promise<void>((r) => setTimeout(r, TIMEOUT_MS).unref()),
  ]);
  return s.running;
}

/** Registers `hook` to run once when the process is asked to stop (SIGTERM, SIGINT) or exits. */
export function onShutdown(hook: () => Promise<void>) {
  if (!g.__rtsShutdown) {
    g.__rtsShutdown = { hooks: new Set(), running: null };
    let signalled = false;
    for (const sig of ["SIGTERM", "SIGINT"] as const) {
      process.on(sig, () => {
        signalled = true;
        void runHooks();
      });
    }
    const exit = process.exit.bind(process);
    process.exit = ((code?: number) => {
      if (!signalled) return exit(code);
      // Hooks again: requests that finished after the signal may have added work.
      g.__rtsShutdown!.running = null;
      void runHooks().finally(() => exit(code));
      return undefined as never;
    });
  }
  g.__rtsShutdown.hooks.add(hook);
}
