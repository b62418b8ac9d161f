// Writing what the rules core decided (rules/decide.ts Decisions), set-based: the new
// participants, referrals, event outcomes, rewards and ledger debits of a chunk of items in one
// statement (data-modifying CTEs over jsonb parameters), then one statement for the referrals and
// participants that changed, the alerts and the pool flag, and the webhook messages with their
// delivery jobs (webhooks/emit.ts outboxRows). On
// PostgreSQL the chunk statements go to the transaction's direct channel as they are built and
// are not awaited: `written` settles when they are done.
import { directSql, pgliteTurn, txSql, type DirectSql, type Tx } from "../../db/client";
import { newId } from "../../shared/ids";
import type { Environment } from "../../shared/environment";
import { reverseForTrackedEvent } from "../reversals/reversals";
import { emitWebhookEvent, fanOutRow, outboxRows, webhookMessagesFor, type OutboxRows, type SubscribedEndpoint } from "../webhooks/emit";
import type { Decisions, Outcome } from "./decide";
import { emailsOfRun, queueEmails } from "../email/queue";

/** New rows that another transaction wrote first (a code taken, an identity seen meanwhile): the caller runs the item again. */
export class RowsClashed extends Error {}

/** Items per chunk statement; the first chunk is a quarter of it, so that writing starts soon. Tests lower it. */
export const writeTuning = { chunk: 200 };

export interface Written {
  /** The outcomes, reversal counts filled in. */
  outcomes: Outcome[];
  /**
   * Settles when every statement is done (PostgreSQL: chunks may still be queued on the
   * transaction's direct channel). Await it before the transaction commits and before anything
   * else uses the transaction, except statements sent behind it on the direct channel.
   */
  written: Promise<void>;
}

/** Waits for every promise to settle, then throws the first failure in the order given. */
export async function settled(list: Promise<unknown>[]): Promise<void> {
  const failed = (await Promise.allSettled(list)).find((r) => r.status === "rejected");
  if (failed) throw failed.reason;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * Writes the decisions. `endpoints`: the enabled webhook endpoints loaded with the state; the
 * webhook events' messages are then written with the rows after the chunks (else
 * emitWebhookEvent reads the endpoints), or, with `deferWebhooks` (the worker's batches), the
 * events are kept in one fan-out job that writes their messages in its own transaction
 * (webhooks/emit.ts fanOutRow).
 */
export async function writeDecisions(
  tx: Tx,
  d: Decisions,
  endpoints?: readonly SubscribedEndpoint[],
  deferWebhooks = false,
  decideTo?: (end: number) => void,
): Promise<Written> {
  const direct = await directSql(tx);
  const pipelined = direct !== null;
  const sql = direct ?? (await txSql(tx));
  const writes: Promise<void>[] = [];
  const send = async (p: Promise<void>) => {
    if (!pipelined) {
      await p;
      return pgliteTurn(); // the process's other requests between chunks, not after the whole batch
    }
    p.catch(() => undefined); // answered by `written`
    writes.push(p);
    // One turn of the event loop: the connection sends what is queued.
    await new Promise((resolve) => setImmediate(resolve));
  };

  // Chunks of items, in order: every row of an item goes in its item's chunk. With `decideTo`
  // (rules/decide.ts decideInSteps), the items of a chunk are decided just before it is sent, so
  // the next chunk is decided while the database writes this one; without, `d` is decided whole.
  let from = 0;
  let size = Math.max(1, Math.floor(writeTuning.chunk / 4));
  const cursor = { p: 0, r: 0, e: 0, w: 0, l: 0 };
  for (;;) {
    if (decideTo) {
      try {
        decideTo(from + size);
      } catch (e) {
        // Nothing may use the transaction while chunks are still queued on the direct channel.
        await Promise.allSettled(writes);
        throw e;
      }
    }
    const to = Math.min(d.next, from + size);
    if (to <= from) break;
    const take = <T extends { at: number }>(list: T[], k: keyof typeof cursor) => {
      const start = cursor[k];
      while (cursor[k] < list.length && list[cursor[k]].at < to) cursor[k]++;
      return list.slice(start, cursor[k]);
    };
    await send(
      writeChunk(sql, d, {
        participants: take(d.participants, "p"),
        referrals: take(d.referrals, "r"),
        events: take(d.events, "e"),
        rewards: take(d.rewards, "w"),
        debits: take(d.debits, "l"),
      }),
    );
    from = to;
    size = Math.max(1, writeTuning.chunk);
  }
  const outbox = !endpoints?.length || !d.webhooks.length ? null : deferWebhooks ? fanOutRow(d.webhooks, d.now) : outboxRows(webhookMessagesFor([...endpoints], d.webhooks), d.now);
  const after = writeAfter(sql, d, outbox);
  if (after) await send(after);
  // The run's emails (email/queue.ts): one statement, none when nobody earned and no alert rose.
  const emails = emailsOfRun(d);
  if (emails.length) await send(queueEmails(sql, d, emails, d.now).then(() => undefined));

  const written = settled(writes);
  written.catch(() => undefined); // the caller's to answer
  const reversal = d.outcomes.find((o) => o.kind === "event" && o.reversal);
  if (!pipelined || (d.webhooks.length && !outbox) || reversal) {
    // Prisma must not share the connection with statements still queued on the direct channel.
    await written;
    if (reversal?.kind === "event" && reversal.reversal) {
      const event = { ...reversal.reversal.event, referralId: reversal.referral?.id ?? null };
      const r = await reverseForTrackedEvent(tx, { businessId: d.businessId, environment: d.environment, apiKeyId: null }, event, reversal.reversal.referredId);
      reversal.reason = r ? `REVERSED:${r.reversals.length}` : null;
      await (await txSql(tx)).execute(`UPDATE "TrackedEvent" SET reason = $2 WHERE id = $1`, event.id, reversal.reason);
    }
    if (!outbox) await emitWebhookEvent(tx, d.webhooks, { emails: false });
  }
  return { outcomes: d.outcomes, written };
}

type Chunk = Pick<Decisions, "participants" | "referrals" | "events" | "rewards" | "debits">;

/**
 * One statement for a chunk. The foreign keys between its rows (a referral's new participant, a
 * reward's new referral, a debit's new reward) are checked at the end of the statement, when all
 * are in; the ledger trigger moves the pool balance under its CHECK (>= 0). New participants are
 * inserted ON CONFLICT DO NOTHING and counted, so that a clash (a code taken, an identity a
 * concurrent request just created) fails the statement's transaction, which the caller retries.
 */
async function writeChunk(sql: DirectSql, scope: { businessId: string; environment: Environment; now: Date }, w: Chunk): Promise<void> {
  const values: unknown[] = [scope.businessId, scope.environment, scope.now.toISOString()];
  // jsonb: parsed once into its binary form and taken apart row by row from it.
  const json = (rows: unknown[]) => {
    values.push(JSON.stringify(rows));
    return `jsonb_to_recordset($${values.length}::jsonb)`;
  };
  // The ids again as an array, whose length the planner knows: rows found through the primary key.
  const ids = (list: string[]) => {
    values.push(list);
    return `$${values.length}::text[]`;
  };
  const ctes: string[] = [];
  const { participants: ps, referrals: rs, events: us, rewards: ws, debits: ds } = w;
  if (ps.length) {
    ctes.push(`p AS (
      INSERT INTO "Participant" (id, "businessId", environment, "externalId", email, name, "referralCode", "createdAt", "updatedAt")
      SELECT t.id, $1::text, $2::"Environment", t.ext, t.email, t.name, t.code, $3::timestamp(3), $3::timestamp(3)
        FROM ${json(ps.map(({ row: p }) => ({ id: p.id, ext: p.externalId, email: p.email, name: p.name, code: p.referralCode })))} AS t(id text, ext text, email text, name text, code text)
      ON CONFLICT DO NOTHING RETURNING 1)`);
  }
  if (rs.length) {
    ctes.push(`r AS (
      INSERT INTO "Referral" (id, "businessId", environment, "apiKeyId", "referrerId", "referredId", source, campaign, status, reason, "qualifiedAt", "createdAt", "updatedAt", provisional)
      SELECT t.id, $1::text, $2::"Environment", t.key, t.rr, t.rd, t.src, t.cmp, t.st::"ReferralStatus", t.why, t.q::timestamp(3), $3::timestamp(3), $3::timestamp(3), t.prov
        FROM ${json(rs.map(({ row: r }) => ({ id: r.id, key: r.apiKeyId, rr: r.referrerId, rd: r.referredId, src: r.source, cmp: r.campaign, st: r.status, why: r.reason, q: iso(r.qualifiedAt), prov: r.provisional })))}
          AS t(id text, key text, rr text, rd text, src text, cmp text, st text, why text, q text, prov boolean))`);
  }
  if (us.length) {
    ctes.push(`e AS (
      UPDATE "TrackedEvent" AS e SET "referralId" = d.ref, status = d.st::"EventStatus", reason = d.why,
             "processedAt" = CASE WHEN d.st = 'QUEUED' THEN NULL ELSE $3::timestamp(3) END, "updatedAt" = $3::timestamp(3)
        FROM ${json(us.map((u) => ({ id: u.id, ref: u.referralId, st: u.status, why: u.reason })))} AS d(id text, ref text, st text, why text)
       WHERE e.id = d.id AND e.id = ANY(${ids(us.map((u) => u.id))}))`);
  }
  if (ws.length) {
    // A PAID reward's payout state: the function the Reward_payout_state trigger uses (migration 0069);
    // the business's holding period read once per statement (materialized: not inlined into every row).
    ctes.push(`h AS MATERIALIZED (SELECT "reward_hold_days"($1::text) AS hold)`);
    ctes.push(`w AS (
      INSERT INTO "Reward" (id, "businessId", environment, "participantId", "eventId", "referralId", kind, "requestedWei", "amountWei", status, reason, "createdAt", "paidAt", "payoutStatus", "payableAt",
                            "ruleId", "baseAmount", "baseCurrency", rate, "rateSource", "rateAt")
      SELECT t.id, $1::text, $2::"Environment", t.pid, t.ev, t.ref, t.k::"RewardKind", t.req, t.amt, t.st::"RewardStatus", t.why, $3::timestamp(3), t.paid::timestamp(3), s."payoutStatus", s."payableAt",
             t.rule, t.base, t.cur, t.rate, t.src, t.rat::timestamp(3)
        FROM ${json(ws.map(({ row: r }) => ({ id: r.id, pid: r.participantId, ev: r.eventId, ref: r.referralId, k: r.kind, req: r.requestedWei.toString(), amt: r.amountWei.toString(), st: r.status, why: r.reason, paid: iso(r.paidAt), rule: r.ruleId ?? null, base: r.baseAmount ?? null, cur: r.baseCurrency ?? null, rate: r.rate ?? null, src: r.rateSource ?? null, rat: iso(r.rateAt ?? null) })))}
          AS t(id text, pid text, ev text, ref text, k text, req numeric, amt numeric, st text, why text, paid text, rule text, base numeric, cur text, rate numeric, src text, rat text)
        CROSS JOIN h
        LEFT JOIN LATERAL "reward_payout_of"(t.paid::timestamp(3), h.hold) AS s ON t.st = 'PAID')`);
  }
  if (ds.length) {
    ctes.push(`l AS (
      INSERT INTO "LedgerEntry" (id, "businessId", environment, kind, "amountWei", "rewardId", memo, "createdAt")
      SELECT t.id, $1::text, $2::"Environment", 'REWARD', -t.amt, t.rid, t.memo, $3::timestamp(3)
        FROM ${json(ds.map((x) => ({ id: newId(), amt: x.amountWei.toString(), rid: x.rewardId, memo: x.memo })))} AS t(id text, amt numeric, rid text, memo text))`);
  }
  if (!ctes.length) return;
  const [row] = await sql.query<{ n: number }>(`WITH ${ctes.join(",\n")}\nSELECT ${ps.length ? `(SELECT count(*) FROM p)::int` : "0"} AS n, $1::text AS b, $2::"Environment" AS v, $3::timestamp(3) AS t`, ...values);
  if (row.n !== ps.length) throw new RowsClashed(`rules: ${ps.length - row.n} new participant(s) clashed with existing rows`);
}

/** Referrals and participants changed after they existed, the alerts, the pool's flag and the webhook messages (outboxRows): one statement, after the chunks. */
function writeAfter(sql: DirectSql, d: Decisions, outbox: Pick<OutboxRows, "ctes"> | null): Promise<void> | null {
  const values: unknown[] = [d.businessId, d.environment, d.now.toISOString()];
  const param = (v: unknown) => {
    values.push(v);
    return `$${values.length}`;
  };
  const json = (rows: unknown[]) => `jsonb_to_recordset(${param(JSON.stringify(rows))}::jsonb)`;
  const ctes: string[] = outbox ? outbox.ctes(param) : [];
  if (d.referralUpdates.size) {
    ctes.push(`r AS (
      UPDATE "Referral" AS r SET status = t.st::"ReferralStatus", reason = t.why, "qualifiedAt" = t.q::timestamp(3), provisional = t.prov, "updatedAt" = $3::timestamp(3)
        FROM ${json([...d.referralUpdates.values()].map((r) => ({ id: r.id, st: r.status, why: r.reason, q: iso(r.qualifiedAt), prov: r.provisional })))} AS t(id text, st text, why text, q text, prov boolean)
       WHERE r.id = t.id AND r."businessId" = $1::text)`);
  }
  if (d.participantUpdates.size) {
    ctes.push(`p AS (
      UPDATE "Participant" AS p SET name = t.name, email = t.email, "externalId" = t.ext, "updatedAt" = $3::timestamp(3)
        FROM ${json([...d.participantUpdates.values()].map((p) => ({ id: p.id, name: p.name, email: p.email, ext: p.externalId })))} AS t(id text, name text, email text, ext text)
       WHERE p.id = t.id AND p."businessId" = $1::text)`);
  }
  if (d.alerts.length) {
    ctes.push(`a AS (
      INSERT INTO "Alert" (id, "businessId", environment, kind, message, "balanceWei", "thresholdWei", "amountWei", "createdAt")
      SELECT t.id, $1::text, $2::"Environment", t.k::"AlertKind", t.msg, t.bal, t.thr, t.amt, $3::timestamp(3)
        FROM ${json(d.alerts.map((a) => ({ id: a.id, k: a.kind, msg: a.message, bal: a.balanceWei.toString(), thr: a.thresholdWei.toString(), amt: a.amountWei?.toString() ?? null })))}
          AS t(id text, k text, msg text, bal numeric, thr numeric, amt numeric))`);
  }
  if (d.referralClicks.length) {
    ctes.push(`c AS (
      INSERT INTO "ReferralClick" ("referralId", "clickId", "createdAt")
      SELECT t.rid, t.cid, $3::timestamp(3) FROM ${json(d.referralClicks.map((c) => ({ rid: c.referralId, cid: c.clickId })))} AS t(rid text, cid text)
      ON CONFLICT DO NOTHING)`);
  }
  if (d.belowThreshold !== null) {
    values.push(d.belowThreshold);
    ctes.push(`f AS (UPDATE "Pool" SET "belowThreshold" = $${values.length}::boolean, "updatedAt" = $3::timestamp(3) WHERE "businessId" = $1::text AND environment = $2::"Environment")`);
  }
  if (!ctes.length) return null;
  return sql.execute(`WITH ${ctes.join(",\n")}\nSELECT $1::text AS b, $2::"Environment" AS v, $3::timestamp(3) AS t`, ...values).then(() => undefined);
}
