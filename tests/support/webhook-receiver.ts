// A real local HTTP receiver for webhook tests: records every request (headers and raw body) and
// answers with the status the test queues (default 200).
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedWebhook {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

export interface Receiver {
  url: string;
  port: number;
  received: ReceivedWebhook[];
  /** TCP connections accepted so far (a refused destination must not even connect). */
  connections(): number;
  /** Statuses for the next requests, in order; afterwards 200. */
  respondWith(...statuses: number[]): void;
  /** Requests to paths starting with `prefix` get no answer until release() (an endpoint that hangs). */
  hang(prefix: string): void;
  /** Requests held by hang() and not answered yet. */
  held(): number;
  /** Answers every held request (200) and stops holding. */
  release(): void;
  /** Resolves once `n` requests have arrived. */
  waitFor(n: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: ReceivedWebhook[] = [];
  const queue: number[] = [];
  let hangPrefix: string | null = null;
  const held: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers[k] = v;
      received.push({ path: req.url ?? "/", headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() });
      if (hangPrefix !== null && (req.url ?? "/").startsWith(hangPrefix)) return void held.push(res);
      const status = queue.shift() ?? 200;
      if (status >= 300 && status < 400) res.setHeader("location", `http://127.0.0.1:${(server.address() as AddressInfo).port}/followed`);
      res.writeHead(status, { "content-type": "text/plain" }).end(status < 300 ? "ok" : `status ${status}`);
    });
  });
  let connections = 0;
  server.on("connection", () => connections++);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    received,
    connections: () => connections,
    respondWith: (...s) => queue.push(...s),
    hang: (prefix) => void (hangPrefix = prefix),
    held: () => held.length,
    release() {
      hangPrefix = null;
      for (const res of held.splice(0)) if (!res.destroyed) res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    },
    async waitFor(n, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < n) {
        if (Date.now() > deadline) throw new Error(`receiver got ${received.length} of ${n} requests`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return received.slice(0, n);
    },
    close: () => {
      for (const res of held.splice(0)) res.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}
