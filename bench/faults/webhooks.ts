// A webhook receiver that resets connections or answers after the delivery timeout: the first
// `badAttempts` attempts of each message are refused that way (a third reset at once, a third
// answered 200 only after the app gave up waiting, a third answered at once), later ones
// answered 200. Every message must end DELIVERED, and a message is received more than once only
// when an attempt it answered late (the app cannot tell that it arrived): at least once, never lost.
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { referredEvent, sleep, type Shop } from "./kit";

/** The app gives up on an endpoint after this long (destination.ts DELIVERY_TIMEOUT_MS) and retries. */
const LATE_MS = 11_000;

async function faultyReceiver(badAttempts: number) {
  const attempts = new Map<string, number>();
  const answered = new Set<string>();
  const stats = { requests: 0, resets: 0, late: 0, ok: 0 };
  const held = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      stats.requests++;
      const id = String(req.headers["webhook-id"] ?? "");
      const n = (attempts.get(id) ?? 0) + 1;
      attempts.set(id, n);
      const mode = n > badAttempts ? "ok" : ["reset", "late", "ok"][[...id].reduce((h, ch) => h + ch.charCodeAt(0), n) % 3];
      if (mode === "reset") {
        stats.resets++;
        return void req.socket.destroy();
      }
      const answer = (inTime: boolean) => {
        held.delete(res);
        if (inTime) answered.add(id);
        if (!res.destroyed) res.writeHead(200, { "content-type": "text/plain" }).end("ok");
      };
      if (mode === "late") {
        stats.late++;
        held.add(res);
        return void setTimeout(() => answer(false), LATE_MS);
      }
      stats.ok++;
      answer(true);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stats,
    attempts,
    answered,
    close: () => {
      for (const r of held) r.destroy();
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/**
 * `events` synchronous referral events on a shop with an endpoint at a faulty receiver (two
 * messages each: referral.created, reward.created); waits (bounded) until every message was
 * answered 200 once. Also times /track meanwhile: a misbehaving endpoint must not slow intake.
 */
export async function faultyWebhooks(s: Shop, events: number, badAttempts: number, timeoutMs: number) {
  const rx = await faultyReceiver(badAttempts);
  try {
    const hook = await s.call("POST", "/business/webhooks", { url: `${rx.url}/hook`, environment: "TEST", events: ["referral.created", "reward.created"] });
    if (hook.status !== 200) throw new Error(`webhook ${hook.status} ${JSON.stringify(hook.body)}`);
    const keys: string[] = [];
    let slowest = 0;
    for (let i = 0; i < events; i++) {
      const key = `hook-${Date.now()}-${i}`;
      const r = await s.sdk("POST", "/track", referredEvent(s, key, i));
      if (r.status !== 200) throw new Error(`track ${r.status} ${JSON.stringify(r.body)}`);
      slowest = Math.max(slowest, r.ms);
      keys.push(key);
    }
    const t0 = Date.now();
    while (rx.answered.size < events * 2 && Date.now() - t0 < timeoutMs) await sleep(250);
    const redelivered = [...rx.attempts.values()].filter((n) => n > 1).length;
    return { keys, messages: events * 2, answeredInTime: rx.answered.size, receiver: { ...rx.stats }, messagesWithRetries: redelivered, allDeliveredMs: Date.now() - t0, slowestTrackMs: slowest };
  } finally {
    // Late answers still held: let them go; the app's record of the last attempt is what counts.
    await sleep(500);
    await rx.close();
  }
}

/** Stored state of the webhook outbox of a business (SQL, on PGlite while the app is down). */
export async function outboxState(sql: (t: string, p?: unknown[]) => Promise<Record<string, unknown>[]>, businessId: string) {
  const [row] = await sql(
    `SELECT count(*) FILTER (WHERE status = 'DELIVERED')::int AS delivered, count(*) FILTER (WHERE status <> 'DELIVERED')::int AS undelivered,
            (SELECT count(*)::int FROM "WebhookDelivery" d WHERE d."businessId" = $1 AND d.success) AS "successfulAttempts"
       FROM "WebhookMessage" WHERE "businessId" = $1`,
    [businessId],
  );
  return row as { delivered: number; undelivered: number; successfulAttempts: number };
}
