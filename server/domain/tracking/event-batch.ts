// Set-based processing of queued events: the fast path of a worker's batch (jobs layer,
// executeEventBatch). For a run of queued events of one business and environment, it reads what
// the rules need in a few statements (the events, the referrers, the referred identities, the
// counts behind the caps and tiers, the pool), decides every event in memory, in arrival order,
// exactly as processEvent would one by one, and writes the results in one statement per table.
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
import { txSql, type Tx } from "../../db/client";
import { Prisma, type Participant, type Referral, type Reward, type TrackedEvent } from "../../db/generated";
import { newId } from "../../shared/ids";
import { toBigInt, weiToEth } from "../../shared/money";
import type { Environment } from "../../shared/environment";
import { readConfig } from "../config/effective";
import { generateReferralCode } from "../participants/service";
import { screenIdentities, utcDayStart } from "../rewards/anti-abuse";
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
}

const DAY_MS = 86_400_000;

/** Events taken by this path (of them, repeat events of users referred before), and events it left to the one-by-one path (process lifetime; logs and tests). */
export const fastPathStats = { fast: 0, repeat: 0, slow: 0 };
type Meta = { referredUserEmail?: unknown; referredUserId?: unknown; referredUserName?: unknown };
const optionalText = (v: unknown) => v === undefined || (typeof v === "string" && v.length > 0);

/**
 * Decides and writes, in arrival order, the events of `slice` (one business and environment)
 * up to the first one this path does not take. It reads all of them ahead: the caller bounds
 * the look-ahead by what it passes (jobs/execute.ts).
 */
export async function processEventRun(tx: Tx, businessId: string, environment: Environment, slice: BatchItem[]): Promise<FastRun> {
  const none: FastRun = { done: [], next: 0, slow: true };
  if (slice.length === 0) return { done: [], next: 0, slow: false };

  // ── Reads ──
  const [cfg, settings] = await Promise.all([readConfig(tx, businessId, environment), tx.referralSettings.findUnique({ where: { businessId } })]);
  // First use of a business (no config or settings row yet): the one-by-one path creates them.
  if (!cfg || !settings) {
    fastPathStats.slow += 1;
    return none;
  }
  // Up to a thousand rows with their metadata: through the direct channel where there is one.
  const rows = await (await txSql(tx)).query<TrackedEvent>(
    `SELECT * FROM "TrackedEvent" WHERE id = ANY($1::text[]) AND "businessId" = $2 AND environment = $3::"Environment"`,
    slice.map((i) => i.eventId),
    businessId,
    environment,
  );
  const events = new Map(rows.map((e) => [e.id, e]));

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

  let stoppedAt = slice.length;
  for (let i = 0; i < slice.length; i++) {
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
    webhooks.push(...newReferralWebhooks(referral));

    // rewards/engine settleEvent, for a referral created just now (never settled before).
    let status: TrackedEvent["status"] = "PROCESSED";
    let reason: string | null = null;
    const eventRewards: Reward[] = [];
    const qualifies = isQualifying(event);
    const inWindow = withinWindow(event, referral);
    const hold = (list: ReturnType<typeof planned>, why: string) => {
      for (const p of list) eventRewards.push(newReward(event, referral, p, { status: "HELD", amountWei: 0n, reason: why }));
      webhooks.push(...eventRewards.map((r) => rewardWebhook("reward.created", r)));
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
      webhooks.push(referralWebhook("referral.qualified", { ...referral }));
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
              webhooks.push(poolLowWebhook({ businessId, environment, balanceWei: balance, thresholdWei: threshold }));
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
          webhooks.push(rewardWebhook("reward.created", r));
          eventRewards.push(r);
        }
        if (eventRewards.some((r) => r.status === "PAID")) referral.status = "REWARDED";
      }
    }
    rewards.push(...eventRewards);
    eventUpdates.push({ id: event.id, referralId: referral.id, status, reason });
    if (status === "FLAGGED") webhooks.push(trackedEventWebhook("event.flagged", { ...event, referralId: referral.id, status, reason, processedAt: now }));
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

  // ── Writes: one statement per table ──
  await writeRun(tx, { now, participants: newParticipants, referrals: newReferrals, eventUpdates, rewards, debits, alerts, belowThreshold: belowThreshold !== pool.belowThreshold ? { poolId: pool.id } : null });
  await emitWebhookEvent(tx, webhooks);
  fastPathStats.fast += done.length;
  if (stoppedAt < slice.length) fastPathStats.slow += 1;
  return { done, next: stoppedAt, slow: stoppedAt < slice.length };
}

interface RunWrites {
  now: Date;
  participants: Participant[];
  referrals: Referral[];
  eventUpdates: { id: string; referralId: string | null; status: TrackedEvent["status"]; reason: string | null }[];
  rewards: Reward[];
  debits: { rewardId: string; amountWei: bigint; memo: string }[];
  alerts: Prisma.AlertCreateManyInput[];
  belowThreshold: { poolId: string } | null;
}

const col = <T, K extends keyof T>(rows: T[], k: K) => rows.map((r) => r[k]);
const dates = (ds: (Date | null)[]) => ds.map((d) => (d ? d.toISOString() : null));

async function writeRun(tx: Tx, w: RunWrites) {
  // The bulk statements skip Prisma's per-statement work where they can (db/client.ts directSql).
  const sql = await txSql(tx);
  const ts = w.now.toISOString();
  const { participants: ps, referrals: rs, rewards: ws } = w;
  if (ps.length) {
    // ON CONFLICT DO NOTHING + a count: a clash (a code taken, an identity a concurrent request
    // just created) fails the batch, which then runs one by one, where each case is handled.
    const inserted = await sql.execute(
      `INSERT INTO "Participant" (id, "businessId", environment, "externalId", email, name, "referralCode", "createdAt", "updatedAt")
       SELECT id, $2, $3::"Environment", ext, email, name, code, $8::timestamp(3), $8::timestamp(3)
         FROM unnest($1::text[], $4::text[], $5::text[], $6::text[], $7::text[]) AS t(id, ext, email, name, code)
       ON CONFLICT DO NOTHING`,
      col(ps, "id"),
      ps[0].businessId,
      ps[0].environment,
      col(ps, "externalId"),
      col(ps, "email"),
      col(ps, "name"),
      col(ps, "referralCode"),
      ts,
    );
    if (inserted !== ps.length) throw new Error(`batch: ${ps.length - inserted} new participant(s) clashed with existing rows`);
  }
  if (rs.length) {
    await sql.execute(
      `INSERT INTO "Referral" (id, "businessId", environment, "apiKeyId", "referrerId", "referredId", source, campaign, status, reason, "qualifiedAt", "createdAt", "updatedAt")
       SELECT id, $2, $3::"Environment", key, rr, rd, src, cmp, st::"ReferralStatus", why, q::timestamp(3), $12::timestamp(3), $12::timestamp(3)
         FROM unnest($1::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[])
           AS t(id, key, rr, rd, src, cmp, st, why, q)`,
      col(rs, "id"),
      rs[0].businessId,
      rs[0].environment,
      col(rs, "apiKeyId"),
      col(rs, "referrerId"),
      col(rs, "referredId"),
      col(rs, "source"),
      col(rs, "campaign"),
      col(rs, "status"),
      col(rs, "reason"),
      dates(col(rs, "qualifiedAt")),
      ts,
    );
  }
  if (w.eventUpdates.length) {
    const u = w.eventUpdates;
    await sql.execute(
      `UPDATE "TrackedEvent" AS e SET "referralId" = d.ref, status = d.st::"EventStatus", reason = d.why, "processedAt" = $5::timestamp(3), "updatedAt" = $5::timestamp(3)
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS d(id, ref, st, why) WHERE e.id = d.id`,
      col(u, "id"),
      col(u, "referralId"),
      col(u, "status"),
      col(u, "reason"),
      ts,
    );
  }
  if (ws.length) {
    await sql.execute(
      // The payout state of a PAID reward is what the Reward_payout_state trigger would give it
      // (same expression), computed once for the statement instead of once per row.
      `INSERT INTO "Reward" (id, "businessId", environment, "participantId", "eventId", "referralId", kind, "requestedWei", "amountWei", status, reason, "createdAt", "paidAt", "payoutStatus", "payableAt")
       SELECT id, $2, $3::"Environment", pid, ev, ref, k::"RewardKind", req::numeric, amt::numeric, st::"RewardStatus", why, $12::timestamp(3), paid::timestamp(3),
              CASE WHEN st = 'PAID' THEN (CASE WHEN h.hold = 0 THEN 'PAYABLE' ELSE 'ON_HOLD' END)::"RewardPayoutStatus" END,
              CASE WHEN st = 'PAID' THEN COALESCE(paid::timestamp(3), CURRENT_TIMESTAMP) + make_interval(days => h.hold) END
         FROM unnest($1::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $13::text[])
           AS t(id, pid, ev, ref, k, req, amt, st, why, paid),
              (SELECT COALESCE((SELECT "payoutHoldDays" FROM "BusinessConfig" WHERE "businessId" = $2), 0) AS hold) AS h`,
      col(ws, "id"),
      ws[0].businessId,
      ws[0].environment,
      col(ws, "participantId"),
      col(ws, "eventId"),
      col(ws, "referralId"),
      col(ws, "kind"),
      ws.map((r) => r.requestedWei.toFixed()),
      ws.map((r) => r.amountWei.toFixed()),
      col(ws, "status"),
      col(ws, "reason"),
      ts,
      dates(col(ws, "paidAt")),
    );
  }
  if (w.debits.length) {
    // One statement: the ledger trigger moves the pool balance once, under its CHECK (>= 0).
    const d = w.debits;
    const { businessId, environment } = ws[0];
    await sql.execute(
      `INSERT INTO "LedgerEntry" (id, "businessId", environment, kind, "amountWei", "rewardId", memo, "createdAt")
       SELECT id, $2, $3::"Environment", 'REWARD', -amt::numeric, rid, memo, $7::timestamp(3)
         FROM unnest($1::text[], $4::text[], $5::text[], $6::text[]) AS t(id, amt, rid, memo)`,
      d.map(() => newId()),
      businessId,
      environment,
      d.map((x) => x.amountWei.toString()),
      col(d, "rewardId"),
      col(d, "memo"),
      ts,
    );
  }
  if (w.belowThreshold) await tx.pool.update({ where: { id: w.belowThreshold.poolId }, data: { belowThreshold: true } });
  if (w.alerts.length) await tx.alert.createMany({ data: w.alerts });
}
