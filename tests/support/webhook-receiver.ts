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
  /** Resolves once `n` requests have arrived. */
  waitFor(n: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: ReceivedWebhook[] = [];
  const queue: number[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers[k] = v;
      received.push({ path: req.url ?? "/", headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() });
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
    async waitFor(n, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < n) {
        if (Date.now() > deadline) throw new Error(`receiver got ${received.length} of ${n} requests`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return received.slice(0, n);
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
