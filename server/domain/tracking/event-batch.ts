// Set-based processing of queued events: the fast path of a worker's batch (jobs layer,
// executeEventBatch). For a run of queued events of one business and environment, it reads what
// the rules need in a few statements (the events, the referrers, the referred identities, the
// counts behind the caps and tiers, the pool), decides every event in memory, in arrival order,
// exactly as processEvent would one by one, and writes the results a chunk of events per statement.
//
// It takes the common shapes: a referred user that does not exist yet, with a referrer that
// resolves to one participant (the full path: participant, referral, screen, qualification,
// rewards, ledger) or without a referrer (a new participant); and events naming no referred
// user. At the first event of any other shape (an existing referred user, an unknown code, a
// reversal event, malformed metadata…) it stops, writes
// what it decided, and the caller runs that event through processEvent (the one-by-one path),
// then calls again for the rest. Nothing here is a second set of rules for a rare case: the
// decisions below are those of screenReferral, settleEvent and payReward for this shape, and the
// equivalence test (server/jobs/batch.test.ts) runs random scenarios both ways and compares
// every outcome.
//
// The caller holds the business+environment pool lock (so the balance, the daily totals and the
// tier counts read here cannot change underneath) and runs this inside its transaction: a
// failure of any statement fails the whole batch transaction, whose jobs then run one by one.
import { directSql, txSql, type DirectSql, type Tx } from "../../db/client";
import { Prisma, type Participant, type Referral, type ReferralSettings, type Reward, type TrackedEvent } from "../../db/generated";
import { newId } from "../../shared/ids";
import { toBigInt, weiToEth } from "../../shared/money";
import type { Environment } from "../../shared/environment";
import { readConfig, type EffectiveConfig } from "../config/effective";
import { generateReferralCode } from "../participants/service";
import { screenIdentities, utcDayStart } from "../rewards/anti-abuse";
import { signalRules } from "../rewards/fraud-signals";
import { plan, toRewardSummary, type RewardSummary } from "../rewards/engine";
import { capPayout } from "../rewards/payout";
import { emitWebhookEvent, newReferralWebhooks, referralWebhook, rewardWebhook, trackedEventWebhook, poolLowWebhook, type WebhookEvent } from "../webhooks/emit";

export interface BatchItem {
  /** The caller's key for the outcome (the job id). */
  key: string;
  eventId: string;
  apiKeyId: string | null;
}

/** The job result of an event, as the EVENT_PROCESS handler returns it. */
type EventResult = Prisma.InputJsonObject;

export interface FastRun {
  /** Outcomes of the events decided and written, in order: the first `next` items. */
  done: { key: string; result: EventResult }[];
  /** Index (in the items given) where the caller continues. */
  next: number;
  /** True when items[next] is an event this path does not take: run it one by one, then call again. */
  slow: boolean;
  /**
   * Settles when the run's writes are done (PostgreSQL: the statements are queued on the
   * transaction's direct channel, not awaited). Await it before the transaction commits and
   * before anything else uses the transaction (Prisma, or a read of what the run wrote), except
   * statements queued behind it on the direct channel; it fails with the run's first failed
   * statement.
   */
  written: Promise<void>;
}

const DAY_MS = 86_400_000;
/**
 * Events decided per write statement (writeChunk); the first chunk of a run is a quarter of it,
 * so that the database starts writing soon after the run's reads. Tests lower it to cross many
 * chunk boundaries.
 */
export const writeTuning = { chunk: 200 };

/** Events taken by this path (of them, repeat events of users referred before), and events it left to the one-by-one path (process lifetime; logs and tests). */
export const fastPathStats = { fast: 0, repeat: 0, slow: 0 };
type Meta = { referredUserEmail?: unknown; referredUserId?: unknown; referredUserName?: unknown };
const optionalText = (v: unknown) => v === undefined || (typeof v === "string" && v.length > 0);

/** What a run reads that the pool lock does not guard: the business's rules and the run's events. */
export interface RunInputs {
  cfg: EffectiveConfig | null;
  settings: ReferralSettings | null;
  /** Some enabled webhook endpoint exists: webhook payloads are built only then (emitWebhookEvent filters). */
  hooks: boolean;
  events: Map<string, TrackedEvent>;
}

/**
 * Reads a run's inputs that its caller may read before taking the pool lock (so that they overlap
 * with the batch ahead of it): the configuration and settings (nothing under the pool lock
 * changes them), and the queued events themselves (only the holder of an event's job changes it).
 */
export async function readRunInputs(tx: Tx, businessId: string, environment: Environment, items: BatchItem[]): Promise<RunInputs> {
  const [cfg, settings, endpoint] = await Promise.all([
    readConfig(tx, businessId, environment),
    tx.referralSettings.findUnique({ where: { businessId } }),
    tx.webhookEndpoint.findFirst({ where: { businessId, environment, enabled: true }, select: { id: true } }),
  ]);
  // Up to a thousand rows with their metadata: through the direct channel where there is one
  // (after Prisma's statements: one connection answers one statement at a time).
  const rows = await (await txSql(tx)).query<TrackedEvent>(
    `SELECT * FROM "TrackedEvent" WHERE id = ANY($1::text[]) AND "businessId" = $2 AND environment = $3::"Environment"`,
    items.map((i) => i.eventId),
    businessId,
    environment,
  );
  return { cfg, settings, hooks: endpoint !== null, events: new Map(rows.map((e) => [e.id, e])) };
}

/**
 * Decides and writes, in arrival order, the events of `slice` (one business and environment)
 * up to the first one this path does not take. It reads all of them ahead: the caller bounds
 * the look-ahead by what it passes (jobs/execute.ts). `inputs`: readRunInputs for these events,
 * when the caller read them already (before the pool lock).
 */
export async function processEventRun(tx: Tx, businessId: string, environment: Environment, slice: BatchItem[], inputs?: RunInputs): Promise<FastRun> {
  const none: FastRun = { done: [], next: 0, slow: true, written: Promise.resolve() };
  if (slice.length === 0) return { ...none, slow: false };

  // ── Reads ──
  const { cfg, settings, hooks, events } = inputs ?? (await readRunInputs(tx, businessId, environment, slice));
  // First use of a business (no config or settings row yet): the one-by-one path creates them.
  // Fraud-signal rules (clicks, wallets) are screened there too (rewards/fraud-signals.ts).
  if (!cfg || !settings || Object.values(signalRules(settings)).some((r) => r !== "OFF")) {
    fastPathStats.slow += 1;
    return none;
  }

  const refValues = new Set<string>();
  const emails = new Set<string>();
  const userIds = new Set<string>();
  for (const it of slice) {
    const e = events.get(it.eventId);
    if (!e) continue;
    if (e.referrer) refValues.add(e.referrer.trim());
    const m = (e.metadata ?? {}) as Meta;
    if (typeof m.referredUserEmail === "string") emails.add(m.referredUserEmail);
    if (typeof m.referredUserId === "string") userIds.add(m.referredUserId);
  }
  const refs = [...refValues].filter((v) => v && v.length <= 64);
  const [referrerRows, identityRows, tiers] = await Promise.all([
    refs.length
      ? tx.$queryRawUnsafe<Participant[]>(
          `SELECT * FROM "Participant" WHERE "businessId" = $1 AND environment = $2::"Environment" AND ("referralCode" = ANY($3::text[]) OR handle = ANY($4::text[]))`,
          businessId,
          environment,
          refs.map((v) => v.toUpperCase()),
          refs.map((v) => v.toLowerCase()),
        )
      : Promise.resolve([] as Participant[]),
    emails.size || userIds.size
      ? tx.$queryRawUnsafe<{ id: string; email: string | null; externalId: string | null; referralCode: string }[]>(
          `SELECT id, email, "externalId", "referralCode" FROM "Participant" WHERE "businessId" = $1 AND environment = $2::"Environment" AND email = ANY($3::text[])
           UNION ALL
           SELECT id, email, "externalId", "referralCode" FROM "Participant" WHERE "businessId" = $1 AND environment = $2::"Environment" AND "externalId" = ANY($4::text[])`,
          businessId,
          environment,
          [...emails],
          [...userIds],
        )
      : Promise.resolve([]),
    cfg.rewardStrategy === "TIERED" ? tx.tier.findMany({ where: { businessId }, orderBy: { minReferrals: "desc" } }) : Promise.resolve([]),
  ]);
  const existingEmails = new Set(identityRows.map((r) => r.email).filter((x): x is string => !!x));
  const existingUserIds = new Set(identityRows.map((r) => r.externalId).filter((x): x is string => !!x));
  const byEmail = new Map(identityRows.filter((r) => r.email).map((r) => [r.email!, r]));
  /** The referrer a value names, or undefined when none or several match (the one-by-one path decides). */
  const referrerOf = (raw: string | null): Participant | undefined => {
    const v = raw?.trim();
    if (!v || v.length > 64) return undefined;
    const m = referrerRows.filter((p) => p.referralCode === v.toUpperCase() || p.handle === v.toLowerCase());
    return m.length === 1 ? m[0] : undefined;
  };

  // A repeat event: a referred user (email only) who existed before this run, and either a known
  // referrer with that pair's referral, or no referrer (the user's latest referral, if any):
  // typically a referred customer's later purchase. Their referrals are locked here, as
  // settleEvent's lockReferral does one by one, and read as locked.
  type Repeat = { referrer: Participant | null; referred: { id: string; referralCode: string } };
  const repeatOf = (e: TrackedEvent): Repeat | undefined => {
    const m = (e.metadata ?? {}) as Meta;
    if (typeof m.referredUserEmail !== "string" || !m.referredUserEmail || m.referredUserId !== undefined || m.referredUserName !== undefined) return undefined;
    const referred = byEmail.get(m.referredUserEmail);
    const referrer = e.referrer ? referrerOf(e.referrer) : null;
    if (!referred || referrer === undefined || referrer?.id === referred.id) return undefined;
    return { referrer, referred };
  };
  const pairs = new Map<string, [string, string]>();
  const solo = new Set<string>();
  for (const it of slice) {
    const e = events.get(it.eventId);
    const r = e && e.status === "QUEUED" ? repeatOf(e) : undefined;
    if (r?.referrer) pairs.set(`${r.referrer.id}\u0000${r.referred.id}`, [r.referrer.id, r.referred.id]);
    else if (r) solo.add(r.referred.id);
  }
  const pairReferrals = new Map<string, Referral>();
  /** Per referred user without a referrer: their latest referral, or null when two share the latest time. */
  const latestOf = new Map<string, Referral | null>();
  if (pairs.size || solo.size) {
    const list = [...pairs.values()];
    const rows = await tx.$queryRawUnsafe<Referral[]>(
      `SELECT r.* FROM "Referral" r
        WHERE r."businessId" = $3 AND r.environment = $4::"Environment"
          AND (r."referredId" = ANY($5::text[]) OR (r."referrerId", r."referredId") IN (SELECT * FROM unnest($1::text[], $2::text[])))
        ORDER BY r.id FOR UPDATE OF r`,
      list.map((x) => x[0]),
      list.map((x) => x[1]),
      businessId,
      environment,
      [...solo],
    );
    const ties = new Set<string>();
    for (const r of rows) {
      pairReferrals.set(`${r.referrerId}\u0000${r.referredId}`, r);
      if (!solo.has(r.referredId)) continue;
      const top = latestOf.get(r.referredId);
      const d = top ? r.createdAt.getTime() - top.createdAt.getTime() : 1;
      if (d > 0) {
        latestOf.set(r.referredId, r);
        ties.delete(r.referredId);
      } else if (d === 0) ties.add(r.referredId);
    }
    for (const id of ties) latestOf.set(id, null);
  }
  /**
   * The referral a repeat event settles against, as processEvent finds it: the pair's (undefined
   * when there is none: a new referral would be screened), or without a referrer the user's
   * latest (null when they have none; undefined when two share the latest time: one by one).
   */
  const referralFor = (r: Repeat): Referral | null | undefined => {
    if (r.referrer) return pairReferrals.get(`${r.referrer.id}\u0000${r.referred.id}`);
    const latest = latestOf.get(r.referred.id);
    return latest === null ? undefined : (latest ?? null);
  };
  /** engine.ts isQualifyingEvent and settleEvent's attribution window. */
  const isQualifying = (e: TrackedEvent) => cfg.qualifyingEvents.length === 0 || cfg.qualifyingEvents.includes(e.eventName);
  const withinWindow = (e: TrackedEvent, referral: Referral) =>
    settings.attributionWindowDays === null || e.createdAt.getTime() - referral.createdAt.getTime() <= settings.attributionWindowDays * DAY_MS;

  const now = new Date();
  const dayStart = utcDayStart(now);
  const referrerIds = [...new Set(referrerRows.map((p) => p.id))];
  const capDaily = cfg.maxEthPerDayPerUserWei !== null ? toBigInt(cfg.maxEthPerDayPerUserWei) : null;
  const countToday = settings.maxReferralsPerReferrerPerDay !== null;
  if ((settings.oneReferralPerReferredUser || countToday) && referrerIds.length) {
    // screenReferral's advisory locks, for every referrer of the run at once (in a fixed order).
    await tx.$queryRawUnsafe(
      `SELECT count(*)::int AS n FROM (SELECT pg_advisory_xact_lock(hashtext('referral:' || k)) FROM unnest($1::text[]) WITH ORDINALITY AS u(k, o) ORDER BY o) s`,
      [...referrerIds].sort(),
    );
  }
  const [paidToday, referralsToday, qualifiedCounts] = await Promise.all([
    capDaily !== null && referrerIds.length
      ? tx.$queryRawUnsafe<{ id: string; s: string }[]>(
          `SELECT "participantId" AS id, SUM("amountWei")::text AS s FROM "Reward"
            WHERE "participantId" = ANY($1::text[]) AND status = 'PAID' AND "paidAt" >= $2::timestamp(3) GROUP BY 1`,
          referrerIds,
          dayStart.toISOString(),
        )
      : Promise.resolve([]),
    countToday && referrerIds.length
      ? tx.$queryRawUnsafe<{ id: string; n: number }[]>(
          `SELECT "referrerId" AS id, COUNT(*)::int AS n FROM "Referral"
            WHERE "businessId" = $1 AND environment = $2::"Environment" AND "referrerId" = ANY($3::text[]) AND status <> 'REJECTED' AND "createdAt" >= $4::timestamp(3) GROUP BY 1`,
          businessId,
          environment,
          referrerIds,
          dayStart.toISOString(),
        )
      : Promise.resolve([]),
    cfg.rewardStrategy === "TIERED" && referrerIds.length
      ? tx.$queryRawUnsafe<{ id: string; n: number }[]>(
          `SELECT "referrerId" AS id, COUNT(*)::int AS n FROM "Referral"
            WHERE "businessId" = $1 AND environment = $2::"Environment" AND "referrerId" = ANY($3::text[]) AND status IN ('QUALIFIED', 'REWARDED') GROUP BY 1`,
          businessId,
          environment,
          referrerIds,
        )
      : Promise.resolve([]),
  ]);
  const paid = new Map<string, bigint>(paidToday.map((r) => [r.id, toBigInt(r.s)]));
  const madeToday = new Map<string, number>(referralsToday.map((r) => [r.id, r.n]));
  const qualified = new Map<string, number>(qualifiedCounts.map((r) => [r.id, r.n]));
  const [pool] = await tx.$queryRawUnsafe<{ id: string; balance: string; belowThreshold: boolean }[]>(
    `SELECT id, "balanceWei"::text AS balance, "belowThreshold" FROM "Pool" WHERE "businessId" = $1 AND environment = $2::"Environment"`,
    businessId,
    environment,
  );
  if (!pool) return { ...none, done: [] }; // the caller locks (and so creates) the pool row first; be safe
  let balance = toBigInt(pool.balance);
  let belowThreshold = pool.belowThreshold;
  const threshold = toBigInt(cfg.lowPoolAlertWei);

  // ── Decisions, in order ──
  const newParticipants: Participant[] = [];
  const newReferrals: Referral[] = [];
  const eventUpdates: { id: string; referralId: string | null; status: TrackedEvent["status"]; reason: string | null }[] = [];
  const rewards: Reward[] = [];
  const debits: { rewardId: string; amountWei: bigint; memo: string }[] = [];
  const alerts: Prisma.AlertCreateManyInput[] = [];
  const webhooks: WebhookEvent[] = [];
  const done: FastRun["done"] = [];
  const seenEmails = new Set<string>();
  const seenUserIds = new Set<string>();

  /** engine.ts requestedAmounts and plan, with the referrer's qualified count held in memory. */
  const planned = (referral: Referral, count: number) => {
    const tier = cfg.rewardStrategy === "TIERED" ? tiers.find((t) => t.minReferrals <= count) : undefined;
    const source = tier ?? { referralRewardWei: cfg.referralRewardWei, bonusWei: cfg.bonusWei };
    return plan(referral, { referralWei: toBigInt(source.referralRewardWei), bonusWei: toBigInt(source.bonusWei) });
  };
  const newReward = (event: TrackedEvent, referral: Referral, p: { participantId: string; kind: "REFERRAL" | "BONUS"; requestedWei: bigint }, d: { status: Reward["status"]; amountWei: bigint; reason: string | null }): Reward => ({
    id: newId(),
    businessId,
    environment,
    participantId: p.participantId,
    eventId: event.id,
    referralId: referral.id,
    kind: p.kind,
    requestedWei: new Prisma.Decimal(p.requestedWei.toString()),
    amountWei: new Prisma.Decimal(d.amountWei.toString()),
    status: d.status,
    reason: d.reason,
    note: null,
    createdAt: now,
    paidAt: d.status === "PAID" ? now : null,
    payoutStatus: null,
    payableAt: null,
    payoutId: null,
    reversedAt: null,
    reversalReason: null,
  });
  /** payout.ts capPayout, with the daily totals and the balance held in memory. */
  const decide = (p: { participantId: string; kind: "REFERRAL" | "BONUS"; requestedWei: bigint }) => capPayout(cfg, p.kind, p.requestedWei, paid.get(p.participantId) ?? 0n, balance);

  // ── Writes, chunk by chunk as the decisions come ──
  // On PostgreSQL each chunk's statement goes to the connection as soon as the chunk is decided,
  // not awaited: the database writes one chunk while the next is decided. The connection runs
  // them in order; the first failure fails the run (and with it the batch transaction).
  const direct = await directSql(tx);
  const pipelined = direct !== null;
  const sql = direct ?? (await txSql(tx));
  const scope = { businessId, environment, now };
  const writes: Promise<void>[] = [];
  const flush = async () => {
    const chunk = { participants: newParticipants.splice(0), referrals: newReferrals.splice(0), eventUpdates: eventUpdates.splice(0), rewards: rewards.splice(0), debits: debits.splice(0) };
    const written = writeChunk(sql, scope, chunk);
    if (!pipelined) return written;
    written.catch(() => undefined); // answered below, after every chunk settled
    writes.push(written);
    // One turn of the event loop: the connection sends what is queued and reads what is answered.
    await new Promise((resolve) => setImmediate(resolve));
  };

  let stoppedAt = slice.length;
  let chunkStart = 0;
  let chunkSize = Math.max(1, Math.floor(writeTuning.chunk / 4));
  for (let i = 0; i < slice.length; i++) {
    if (i - chunkStart >= chunkSize) {
      await flush();
      chunkStart = i;
      chunkSize = Math.max(1, writeTuning.chunk);
    }
    const item = slice[i];
    const event = events.get(item.eventId);
    if (!event) {
      stoppedAt = i; // the one-by-one path answers NOT_FOUND
      break;
    }
    if (event.status !== "QUEUED") {
      done.push({ key: item.key, result: { eventId: event.id, status: event.status, reason: event.reason, skipped: true } });
      continue;
    }
    const repeat = !cfg.reversalEvents.includes(event.eventName) ? repeatOf(event) : undefined;
    const known = repeat ? referralFor(repeat) : undefined;
    // settleEvent where it decides without paying: no referral to settle (nothing to link), or an
    // existing one refused, not qualifying, out of the window, untrusted, or settled already
    // (QUALIFIED / REWARDED). A held (FLAGGED) or a PENDING referral this event may qualify goes one by one.
    const outcome: { status: TrackedEvent["status"]; reason: string | null } | undefined =
      known === undefined || known?.status === "FLAGGED"
        ? undefined
        : known === null
          ? { status: "PROCESSED", reason: null }
          : known.status === "REJECTED"
            ? { status: "REJECTED", reason: known.reason ?? "REFERRAL_REJECTED" }
            : !isQualifying(event)
              ? { status: "PROCESSED", reason: "NOT_A_QUALIFYING_EVENT" }
              : !withinWindow(event, known)
                ? { status: "PROCESSED", reason: "ATTRIBUTION_WINDOW_EXPIRED" }
                : event.untrusted
                  ? { status: "PROCESSED", reason: "UNTRUSTED_EVENT" }
                  : known.status === "QUALIFIED" || known.status === "REWARDED"
                    ? { status: "PROCESSED", reason: "REFERRAL_ALREADY_SETTLED" }
                    : undefined;
    if (repeat && outcome) {
      fastPathStats.repeat += 1;
      const referralId = known?.id ?? null;
      eventUpdates.push({ id: event.id, referralId, ...outcome });
      done.push({
        key: item.key,
        result: { eventId: event.id, ...outcome, referralId, referredParticipant: { participantId: repeat.referred.id, referralCode: repeat.referred.referralCode }, rewards: [] },
      });
      continue;
    }
    const m = (event.metadata ?? {}) as Meta;
    const referrer = referrerOf(event.referrer);
    const email = m.referredUserEmail as string | undefined;
    const userId = m.referredUserId as string | undefined;
    const take =
      (!event.referrer || referrer) &&
      !cfg.reversalEvents.includes(event.eventName) &&
      optionalText(email) &&
      optionalText(userId) &&
      optionalText(m.referredUserName) &&
      !(email && (existingEmails.has(email) || seenEmails.has(email))) &&
      !(userId && (existingUserIds.has(userId) || seenUserIds.has(userId)));
    if (!take) {
      stoppedAt = i;
      break;
    }
    if (!email && !userId) {
      // No referred user: nothing to link or settle (tracking/service processEvent).
      eventUpdates.push({ id: event.id, referralId: null, status: "PROCESSED", reason: null });
      done.push({ key: item.key, result: { eventId: event.id, status: "PROCESSED", reason: null, referralId: null, referredParticipant: null, rewards: [] } });
      continue;
    }
    if (email) seenEmails.add(email);
    if (userId) seenUserIds.add(userId);

    // participants/service ensureParticipant: a new participant with a fresh code.
    const referred: Participant = {
      id: newId(),
      businessId,
      environment,
      externalId: userId ?? null,
      email: email ?? null,
      name: (m.referredUserName as string | undefined) ?? null,
      handle: null,
      referralCode: generateReferralCode(),
      walletAddress: null,
      createdAt: now,
      updatedAt: now,
    };
    newParticipants.push(referred);
    if (!referrer) {
      // A new user without a referrer: no referral of theirs exists yet, so nothing to settle.
      eventUpdates.push({ id: event.id, referralId: null, status: "PROCESSED", reason: null });
      done.push({
        key: item.key,
        result: { eventId: event.id, status: "PROCESSED", reason: null, referralId: null, referredParticipant: { participantId: referred.id, referralCode: referred.referralCode }, rewards: [] },
      });
      continue;
    }

    // rewards/anti-abuse screenReferral (the referred user is new: no other referral of theirs exists).
    let screen: { status: Referral["status"]; reason: string | null } = { status: "PENDING", reason: null };
    const rejected = screenIdentities(settings, referrer, referred);
    if (rejected) screen = { status: rejected.status, reason: rejected.reason ?? null };
    else if (countToday && (madeToday.get(referrer.id) ?? 0) >= settings.maxReferralsPerReferrerPerDay!) screen = { status: "REJECTED", reason: "REFERRER_DAILY_LIMIT" };
    else if (settings.holdForReview) screen = { status: "FLAGGED", reason: "HELD_FOR_REVIEW" };
    if (screen.status !== "REJECTED") madeToday.set(referrer.id, (madeToday.get(referrer.id) ?? 0) + 1);

    const referral: Referral = {
      id: newId(),
      businessId,
      environment,
      apiKeyId: item.apiKeyId,
      referrerId: referrer.id,
      referredId: referred.id,
      source: event.source,
      campaign: event.campaign,
      status: screen.status,
      reason: screen.reason,
      qualifiedAt: null,
      createdAt: now,
      updatedAt: now,
    };
    newReferrals.push(referral);
    if (hooks) webhooks.push(...newReferralWebhooks(referral));

    // rewards/engine settleEvent, for a referral created just now (never settled before).
    let status: TrackedEvent["status"] = "PROCESSED";
    let reason: string | null = null;
    const eventRewards: Reward[] = [];
    const qualifies = isQualifying(event);
    const inWindow = withinWindow(event, referral);
    const hold = (list: ReturnType<typeof planned>, why: string) => {
      for (const p of list) eventRewards.push(newReward(event, referral, p, { status: "HELD", amountWei: 0n, reason: why }));
      if (hooks) webhooks.push(...eventRewards.map((r) => rewardWebhook("reward.created", r)));
    };
    if (referral.status === "REJECTED") {
      status = "REJECTED";
      reason = referral.reason ?? "REFERRAL_REJECTED";
    } else if (referral.status === "FLAGGED") {
      status = "FLAGGED";
      reason = referral.reason ?? "HELD_FOR_REVIEW";
      if (qualifies && inWindow && !event.untrusted) hold(planned(referral, 1 + (qualified.get(referrer.id) ?? 0)), reason);
    } else if (!qualifies) reason = "NOT_A_QUALIFYING_EVENT";
    else if (!inWindow) reason = "ATTRIBUTION_WINDOW_EXPIRED";
    else if (event.untrusted) reason = "UNTRUSTED_EVENT";
    else {
      referral.status = "QUALIFIED";
      referral.qualifiedAt = now;
      if (hooks) webhooks.push(referralWebhook("referral.qualified", { ...referral }));
      qualified.set(referrer.id, (qualified.get(referrer.id) ?? 0) + 1);
      const list = planned(referral, qualified.get(referrer.id)!);
      if (settings.holdForReview) {
        status = "FLAGGED";
        reason = "HELD_FOR_REVIEW";
        hold(list, reason);
      } else {
        for (const p of list) {
          const d = decide(p);
          const r = newReward(event, referral, p, d);
          if (d.status === "PAID") {
            balance -= d.amountWei;
            paid.set(p.participantId, (paid.get(p.participantId) ?? 0n) + d.amountWei);
            debits.push({ rewardId: r.id, amountWei: d.amountWei, memo: `${r.kind} reward ${weiToEth(d.amountWei)} ETH` });
            // ledger/service checkLowPool: one alert per crossing of the threshold.
            if (!belowThreshold && balance < threshold) {
              belowThreshold = true;
              alerts.push({
                id: newId(),
                businessId,
                environment,
                kind: "LOW_POOL",
                message: `Pool balance ${weiToEth(balance)} ETH fell below the alert threshold of ${weiToEth(threshold)} ETH`,
                balanceWei: balance.toString(),
                thresholdWei: threshold.toString(),
                createdAt: now,
              });
              if (hooks) webhooks.push(poolLowWebhook({ businessId, environment, balanceWei: balance, thresholdWei: threshold }));
              if (cfg.autoRefillEnabled) {
                const amount = toBigInt(cfg.autoRefillAmountWei);
                alerts.push({
                  id: newId(),
                  businessId,
                  environment,
                  kind: "REFILL_REQUEST",
                  message: `Auto-refill: please deposit ${weiToEth(amount)} ETH to the ${environment} pool (balance ${weiToEth(balance)} ETH)`,
                  balanceWei: balance.toString(),
                  thresholdWei: threshold.toString(),
                  amountWei: amount.toString(),
                  createdAt: now,
                });
              }
            }
          }
          if (hooks) webhooks.push(rewardWebhook("reward.created", r));
          eventRewards.push(r);
        }
        if (eventRewards.some((r) => r.status === "PAID")) referral.status = "REWARDED";
      }
    }
    rewards.push(...eventRewards);
    eventUpdates.push({ id: event.id, referralId: referral.id, status, reason });
    if (hooks && status === "FLAGGED") webhooks.push(trackedEventWebhook("event.flagged", { ...event, referralId: referral.id, status, reason, processedAt: now }));
    const summaries: RewardSummary[] = eventRewards.map(toRewardSummary);
    done.push({
      key: item.key,
      result: {
        eventId: event.id,
        status,
        reason,
        referralId: referral.id,
        referredParticipant: { participantId: referred.id, referralCode: referred.referralCode },
        rewards: summaries as unknown as Prisma.InputJsonArray,
      },
    });
  }

  // The last chunk, then what follows the run's writes. The run answers while its statements may
  // still be running: `written` settles when they are done (the caller awaits it before its
  // transaction ends or anything else uses the transaction's results).
  await flush();
  const below = belowThreshold !== pool.belowThreshold ? { poolId: pool.id } : null;
  const written = settled(writes);
  written.catch(() => undefined); // the caller's to answer
  if (!pipelined || below || alerts.length || webhooks.length) {
    // Alerts and webhook messages go through Prisma, which must not share the connection with
    // statements still queued on the direct channel: the chunks first.
    await written;
    await writeAlerts(tx, alerts, below);
    await emitWebhookEvent(tx, webhooks);
  }
  fastPathStats.fast += done.length;
  if (stoppedAt < slice.length) fastPathStats.slow += 1;
  return { done, next: stoppedAt, slow: stoppedAt < slice.length, written };
}

/** Waits for every promise to settle, then throws the first failure in the order given (an earlier statement's error, not the aborted-transaction errors of the ones queued behind it). */
export async function settled(list: Promise<unknown>[]): Promise<void> {
  const failed = (await Promise.allSettled(list)).find((r) => r.status === "rejected");
  if (failed) throw failed.reason;
}

interface ChunkWrites {
  participants: Participant[];
  referrals: Referral[];
  eventUpdates: { id: string; referralId: string | null; status: TrackedEvent["status"]; reason: string | null }[];
  rewards: Reward[];
  debits: { rewardId: string; amountWei: bigint; memo: string }[];
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * Writes a chunk of decided events in one statement: the new participants, referrals, event
 * outcomes, rewards and ledger debits, each a data-modifying CTE over one JSON parameter. The
 * foreign keys between them (a referral's new participant, a reward's new referral, a debit's new
 * reward) are checked at the end of the statement, when every row of it is in; the ledger
 * trigger moves the pool balance once, under its CHECK (>= 0). Answers the number of participants
 * inserted: ON CONFLICT DO NOTHING + that count, so that a clash (a code taken, an identity a
 * concurrent request just created) fails the batch, which then runs one by one, where each case
 * is handled.
 */
async function writeChunk(sql: DirectSql, scope: { businessId: string; environment: Environment; now: Date }, w: ChunkWrites): Promise<void> {
  const values: unknown[] = [scope.businessId, scope.environment, scope.now.toISOString()];
  // jsonb, not json: parsed once into its binary form and taken apart row by row from it (a json
  // parameter is parsed on input and again by json_to_recordset, which builds a hash table per row).
  const json = (rows: unknown[]) => {
    values.push(JSON.stringify(rows));
    return `jsonb_to_recordset($${values.length}::jsonb)`;
  };
  // The ids again as an array: the planner knows an array's length, not a JSON document's (it
  // assumes 100 rows), so the rows to update are found through the primary key, not a scan.
  const ids = (list: string[]) => {
    values.push(list);
    return `$${values.length}::text[]`;
  };
  const ctes: string[] = [];
  const { participants: ps, referrals: rs, eventUpdates: us, rewards: ws, debits: ds } = w;
  if (ps.length) {
    ctes.push(`p AS (
      INSERT INTO "Participant" (id, "businessId", environment, "externalId", email, name, "referralCode", "createdAt", "updatedAt")
      SELECT t.id, $1::text, $2::"Environment", t.ext, t.email, t.name, t.code, $3::timestamp(3), $3::timestamp(3)
        FROM ${json(ps.map((p) => ({ id: p.id, ext: p.externalId, email: p.email, name: p.name, code: p.referralCode })))} AS t(id text, ext text, email text, name text, code text)
      ON CONFLICT DO NOTHING RETURNING 1)`);
  }
  if (rs.length) {
    ctes.push(`r AS (
      INSERT INTO "Referral" (id, "businessId", environment, "apiKeyId", "referrerId", "referredId", source, campaign, status, reason, "qualifiedAt", "createdAt", "updatedAt")
      SELECT t.id, $1::text, $2::"Environment", t.key, t.rr, t.rd, t.src, t.cmp, t.st::"ReferralStatus", t.why, t.q::timestamp(3), $3::timestamp(3), $3::timestamp(3)
        FROM ${json(rs.map((r) => ({ id: r.id, key: r.apiKeyId, rr: r.referrerId, rd: r.referredId, src: r.source, cmp: r.campaign, st: r.status, why: r.reason, q: iso(r.qualifiedAt) })))}
          AS t(id text, key text, rr text, rd text, src text, cmp text, st text, why text, q text))`);
  }
  if (us.length) {
    ctes.push(`e AS (
      UPDATE "TrackedEvent" AS e SET "referralId" = d.ref, status = d.st::"EventStatus", reason = d.why, "processedAt" = $3::timestamp(3), "updatedAt" = $3::timestamp(3)
        FROM ${json(us.map((u) => ({ id: u.id, ref: u.referralId, st: u.status, why: u.reason })))} AS d(id text, ref text, st text, why text)
       WHERE e.id = d.id AND e.id = ANY(${ids(us.map((u) => u.id))}))`);
  }
  if (ws.length) {
    // The payout state of a PAID reward is what the Reward_payout_state trigger would give it
    // (same expression), computed once for the statement instead of once per row.
    ctes.push(`w AS (
      INSERT INTO "Reward" (id, "businessId", environment, "participantId", "eventId", "referralId", kind, "requestedWei", "amountWei", status, reason, "createdAt", "paidAt", "payoutStatus", "payableAt")
      SELECT t.id, $1::text, $2::"Environment", t.pid, t.ev, t.ref, t.k::"RewardKind", t.req, t.amt, t.st::"RewardStatus", t.why, $3::timestamp(3), t.paid::timestamp(3),
             CASE WHEN t.st = 'PAID' THEN (CASE WHEN h.hold = 0 THEN 'PAYABLE' ELSE 'ON_HOLD' END)::"RewardPayoutStatus" END,
             CASE WHEN t.st = 'PAID' THEN COALESCE(t.paid::timestamp(3), CURRENT_TIMESTAMP) + make_interval(days => h.hold) END
        FROM ${json(ws.map((r) => ({ id: r.id, pid: r.participantId, ev: r.eventId, ref: r.referralId, k: r.kind, req: r.requestedWei.toFixed(), amt: r.amountWei.toFixed(), st: r.status, why: r.reason, paid: iso(r.paidAt) })))}
          AS t(id text, pid text, ev text, ref text, k text, req numeric, amt numeric, st text, why text, paid text),
             (SELECT COALESCE((SELECT "payoutHoldDays" FROM "BusinessConfig" WHERE "businessId" = $1::text), 0) AS hold) AS h)`);
  }
  if (ds.length) {
    ctes.push(`l AS (
      INSERT INTO "LedgerEntry" (id, "businessId", environment, kind, "amountWei", "rewardId", memo, "createdAt")
      SELECT t.id, $1::text, $2::"Environment", 'REWARD', -t.amt, t.rid, t.memo, $3::timestamp(3)
        FROM ${json(ds.map((d) => ({ id: newId(), amt: d.amountWei.toString(), rid: d.rewardId, memo: d.memo })))} AS t(id text, amt numeric, rid text, memo text))`);
  }
  if (!ctes.length) return;
  const [row] = await sql.query<{ n: number }>(`WITH ${ctes.join(",\n")}\nSELECT ${ps.length ? `(SELECT count(*) FROM p)::int` : "0"} AS n, $1::text AS b, $2::"Environment" AS v, $3::timestamp(3) AS t`, ...values);
  if (row.n !== ps.length) throw new Error(`batch: ${ps.length - row.n} new participant(s) clashed with existing rows`);
}

/** The run's alerts and the pool's below-threshold flag, after its chunks. */
async function writeAlerts(tx: Tx, alerts: Prisma.AlertCreateManyInput[], belowThreshold: { poolId: string } | null) {
  if (belowThreshold) await tx.pool.update({ where: { id: belowThreshold.poolId }, data: { belowThreshold: true } });
  if (alerts.length) await tx.alert.createMany({ data: alerts });
}
