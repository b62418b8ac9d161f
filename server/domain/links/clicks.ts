// Clicks are recorded off the request path: the redirect puts its click in an in-memory buffer
// and answers; the buffer is written in batches (one INSERT … SELECT per batch, at most every
// CLICK_FLUSH_MS (env) or CLICK_BATCH clicks) and flushed on shutdown (server/runtime.ts). The batch
// decides which clicks count: the first non-bot click of a visitor on a link in a UTC hour, unless
// one was counted before; a unique partial index holds that rule, so a concurrent batch from
// another instance fails and is retried instead of counting twice.
import { db } from "../../db/client";
import { isUniqueViolation, sqlState } from "../../db/unique-violation";
import { env } from "../../shared/env";
import type { Environment } from "../../shared/environment";

export interface PendingClick {
  id: string;
  businessId: string;
  environment: Environment;
  participantId: string;
  code: string;
  visitorHash: string;
  hour: Date;
  refererHost: string | null;
  utmSource: string | null;
  utmMedium: string | null;
  utmCampaign: string | null;
  utmTerm: string | null;
  utmContent: string | null;
  bot: boolean;
  at: Date;
}

const CLICK_BATCH = 1000;

interface State {
  buffer: PendingClick[];
  flushing: Promise<void> | null;
  timer: NodeJS.Timeout | null;
}
// On globalThis: the route bundles and the start-up code (instrumentation) share one buffer.
const g = globalThis as unknown as { __rtsClicks?: State };
const state = () => (g.__rtsClicks ??= { buffer: [], flushing: null, timer: null });

const STATEMENT = `
  WITH input AS (
    SELECT t.*, row_number() OVER (PARTITION BY t.pid, t.vh, t.hr, t.bot ORDER BY t.at, t.id) AS rn
      FROM jsonb_to_recordset($1::jsonb) AS t(id text, bid text, env text, pid text, code text, vh text, hr text, rh text,
                                             us text, um text, uc text, ut text, uco text, bot boolean, at text)
      JOIN "Participant" p ON p.id = t.pid AND p."businessId" = t.bid AND p.environment = t.env::"Environment"
  )
  INSERT INTO "LinkClick" (id, "businessId", environment, "participantId", code, "visitorHash", hour, "refererHost",
                           "utmSource", "utmMedium", "utmCampaign", "utmTerm", "utmContent", bot, counted, "createdAt")
  SELECT i.id, i.bid, i.env::"Environment", i.pid, i.code, i.vh, i.hr::timestamp(3), i.rh, i.us, i.um, i.uc, i.ut, i.uco, i.bot,
         NOT i.bot AND i.rn = 1 AND NOT EXISTS (
           SELECT 1 FROM "LinkClick" c WHERE c."participantId" = i.pid AND c."visitorHash" = i.vh AND c.hour = i.hr::timestamp(3) AND c.counted),
         i.at::timestamp(3)
    FROM input i
  ON CONFLICT (id) DO NOTHING`;

/** Writes one batch (retried when a concurrent batch counted the same visitor first). */
async function writeClicks(clicks: PendingClick[]): Promise<void> {
  if (!clicks.length) return;
  const rows = clicks.map((c) => ({
    id: c.id,
    bid: c.businessId,
    env: c.environment,
    pid: c.participantId,
    code: c.code,
    vh: c.visitorHash,
    hr: c.hour.toISOString(),
    rh: c.refererHost,
    us: c.utmSource,
    um: c.utmMedium,
    uc: c.utmCampaign,
    ut: c.utmTerm,
    uco: c.utmContent,
    bot: c.bot,
    at: c.at.toISOString(),
  }));
  for (let attempt = 1; ; attempt++) {
    try {
      await db.$executeRawUnsafe(STATEMENT, JSON.stringify(rows));
      return;
    } catch (e) {
      if (attempt >= 3 || !isUniqueViolation(e)) throw e;
    }
  }
}

/**
 * Writes a batch. When the database refuses the data itself (SQLSTATE class 22: a value no
 * column takes), retrying the same rows can never succeed: the batch is halved until the clicks
 * it refuses are found, which are dropped (logged) so that they never hold the others back. Any
 * other failure (the database unreachable) is thrown: the caller keeps the batch for the next try
 * (rows already written are skipped then: ON CONFLICT (id)). Answers the clicks dropped.
 */
async function writeOrSetAside(clicks: PendingClick[]): Promise<number> {
  try {
    await writeClicks(clicks);
    return 0;
  } catch (e) {
    const state = sqlState(e);
    if (!state?.startsWith("22")) throw e;
    if (clicks.length === 1) {
      console.warn(`[clicks] a click the database refuses was dropped (${state}): link ${clicks[0].code}`);
      return 1;
    }
    const half = Math.ceil(clicks.length / 2);
    return (await writeOrSetAside(clicks.slice(0, half))) + (await writeOrSetAside(clicks.slice(half)));
  }
}

/** Buffers a click; it is written within CLICK_FLUSH_MS. Never waits for the database. */
export function enqueueClick(click: PendingClick) {
  const s = state();
  s.buffer.push(click);
  if (s.buffer.length > env.clickBufferMax) {
    s.buffer.splice(0, s.buffer.length - env.clickBufferMax);
    console.warn("[clicks] buffer full (database unreachable?): oldest clicks dropped");
  }
  if (s.buffer.length >= CLICK_BATCH) void flushClicks();
  else if (!s.timer) {
    s.timer = setTimeout(() => {
      s.timer = null;
      void flushClicks();
    }, env.clickFlushMs);
    s.timer.unref?.();
  }
}

/** Writes every buffered click; resolves when the buffer is empty (or a write failed: kept for the next try). */
export async function flushClicks(): Promise<void> {
  const s = state();
  if (s.flushing) await s.flushing; // the batch in flight first
  if (s.flushing) return s.flushing; // another caller started the next one meanwhile
  if (!s.buffer.length) return;
  s.flushing = drain(s).finally(() => {
    s.flushing = null;
  });
  return s.flushing;
}

async function drain(s: State) {
  while (s.buffer.length) {
    const batch = s.buffer.splice(0, CLICK_BATCH);
    try {
      await writeOrSetAside(batch);
    } catch (e) {
      s.buffer.unshift(...batch);
      console.warn("[clicks] batch write failed; will retry:", (e as Error).message);
      if (!s.timer) {
        s.timer = setTimeout(() => {
          s.timer = null;
          void flushClicks();
        }, env.clickFlushMs * 4);
        s.timer.unref?.();
      }
      return;
    }
  }
}

/** Clicks waiting in this process's buffer. */
export const bufferedClicks = () => state().buffer.length;
