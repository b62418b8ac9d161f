// CSV exports of referrals, rewards, events and payouts with the filters of their lists, produced page by
// page (500 rows per query) so that a large range streams in constant memory; cells are
// shared/csv.ts's (formula-safe); amounts are exact decimal strings in the environment's asset
// (gas in ETH).
import { db } from "../../db/client";
import { csvLine } from "../../shared/csv";
import { decimalText, weiToEth } from "../../shared/money";
import { amountOf } from "../../shared/asset";
import { readAssets } from "../assets/read";
import type { ListBusinessReferralsInput } from "../referrals/browse-schemas";
import { paidBy, referralWhere } from "../referrals/browse";
import { eventWhere, type EventFilters } from "../events/service";
import { rewardWhere, type RewardFilters } from "../rewards/service";
import { rewardStateOf } from "../rewards/state";
import { payoutWhere } from "../payouts/list";
import type { ListPayoutsInput } from "../payouts/schemas";

const BATCH = 500;

type Fetch<T> = (args: { take: number; cursor?: { id: string }; skip?: number; orderBy: Array<Record<string, "desc">> }) => Promise<T[]>;

/** Newest first, `BATCH` rows per query, keyed on (createdAt, id) through Prisma's cursor: a page at a time. */
async function* pageLists<T extends { id: string }>(fetch: Fetch<T>): AsyncGenerator<T[]> {
  let cursor: string | undefined;
  for (;;) {
    const rows = await fetch({ take: BATCH, orderBy: [{ createdAt: "desc" }, { id: "desc" }], ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}) });
    if (rows.length) yield rows;
    if (rows.length < BATCH) return;
    cursor = rows[rows.length - 1].id;
  }
}

/** The same, row by row. */
async function* pages<T extends { id: string }>(fetch: Fetch<T>): AsyncGenerator<T> {
  for await (const rows of pageLists(fetch)) yield* rows;
}

const who = (p: { email: string | null; name: string | null; externalId: string | null; referralCode: string }) => [p.name, p.email, p.externalId, p.referralCode];

export async function* referralsCsv(businessId: string, q: Omit<ListBusinessReferralsInput, "limit" | "cursor">): AsyncGenerator<string> {
  yield csvLine(["referralId", "environment", "status", "reason", "createdAt", "qualifiedAt", "referrerName", "referrerEmail", "referrerUserId", "referrerCode", "referredName", "referredEmail", "referredUserId", "referredCode", "apiKeyId", "apiKeyName", "source", "campaign", "ethPaid"]);
  const where = referralWhere(businessId, q);
  const assets = await readAssets(db, businessId);
  // ethPaid as the referrals list reads it (paidBy): reversed rewards and refunded shares left out.
  for await (const page of pageLists((a) => db.referral.findMany({ ...a, where, include: { referrer: true, referred: true, apiKey: { select: { name: true, prefix: true } } } }))) {
    const paid = await paidBy("referralId", page.map((r) => r.id));
    for (const r of page) {
      yield csvLine([r.id, r.environment, r.status, r.reason, r.createdAt, r.qualifiedAt, ...who(r.referrer), ...who(r.referred), r.apiKeyId, r.apiKey ? (r.apiKey.name ?? r.apiKey.prefix) : null, r.source, r.campaign, amountOf(paid.get(r.id) ?? 0n, assets[r.environment])]);
    }
  }
}

export async function* rewardsCsv(businessId: string, q: RewardFilters): AsyncGenerator<string> {
  // status is where the reward stands (rewardStateOf: HELD_FOR_REVIEW, REFUSED, ON_HOLD, PAYABLE,
  // IN_PAYOUT, PAID_OUT, REVERSED), never the bare PAID that only says the pool paid it; `state`
  // repeats it for readers of earlier exports. reversedAt and reversalReason: when and why it was reversed.
  // Commissions: the rule and what the amount was computed from (base amount and currency, the
  // price of 1 ETH in it, where and when the price was read); empty for other kinds. reversedEth:
  // what its reversals took back (the whole amount once REVERSED, a share after a partial refund).
  yield csvLine(["rewardId", "environment", "kind", "status", "reason", "requestedEth", "amountEth", "recipientName", "recipientEmail", "recipientUserId", "recipientCode", "eventId", "referralId", "note", "createdAt", "paidAt", "state", "reversedAt", "reversalReason", "ruleId", "baseAmount", "baseCurrency", "rate", "rateSource", "rateAt", "reversedEth"]);
  const where = rewardWhere(businessId, q);
  const assets = await readAssets(db, businessId);
  for await (const w of pages((a) => db.reward.findMany({ ...a, where, include: { participant: true } }))) {
    const state = rewardStateOf(w);
    yield csvLine([
      w.id, w.environment, w.kind, state, w.reason, amountOf(w.requestedWei, assets[w.environment]), amountOf(w.amountWei, assets[w.environment]), ...who(w.participant), w.eventId, w.referralId, w.note, w.createdAt, w.paidAt, state, w.reversedAt, w.reversalReason,
      w.ruleId, w.baseAmount && decimalText(w.baseAmount), w.baseCurrency, w.rate && decimalText(w.rate), w.rateSource, w.rateAt,
      amountOf(w.reversedWei, assets[w.environment]),
    ]);
  }
}

export async function* eventsCsv(businessId: string, q: EventFilters): AsyncGenerator<string> {
  yield csvLine(["eventId", "environment", "eventName", "status", "reason", "referrerSent", "referrerName", "referrerEmail", "referrerUserId", "referrerCode", "referredName", "referredEmail", "referredUserId", "referredCode", "referralId", "campaign", "source", "apiKeyId", "createdAt", "processedAt", "ethPaid", "amount", "currency", "refundedAmount"]);
  const where = eventWhere(businessId, q);
  const assets = await readAssets(db, businessId);
  const none = [null, null, null, null];
  for await (const page of pageLists((a) => db.trackedEvent.findMany({ ...a, where, include: { referral: { include: { referrer: true, referred: true } } } }))) {
    const paid = await paidBy("eventId", page.map((e) => e.id));
    for (const e of page) {
      yield csvLine([e.id, e.environment, e.eventName, e.status, e.reason, e.referrer, ...(e.referral ? who(e.referral.referrer) : none), ...(e.referral ? who(e.referral.referred) : none), e.referralId, e.campaign, e.source, e.apiKeyId, e.createdAt, e.processedAt, amountOf(paid.get(e.id) ?? 0n, assets[e.environment]), e.amount === null ? null : decimalText(e.amount), e.currency, decimalText(e.refundedAmount)]);
    }
  }
}

export async function* payoutsCsv(businessId: string, q: Omit<ListPayoutsInput, "limit" | "cursor">): AsyncGenerator<string> {
  yield csvLine(["payoutId", "environment", "status", "amountEth", "rewardsEth", "offsetEth", "gasEth", "walletAddress", "recipientName", "recipientEmail", "recipientUserId", "recipientCode", "fromAddress", "txHash", "nonce", "blockNumber", "error", "rewardIds", "createdAt", "sentAt", "confirmedAt", "failedAt"]);
  const where = payoutWhere(businessId, q);
  const assets = await readAssets(db, businessId);
  for await (const p of pages((a) => db.payout.findMany({ ...a, where, include: { participant: true } }))) {
    yield csvLine([
      p.id, p.environment, p.status, amountOf(p.amountWei, assets[p.environment]), amountOf(p.rewardsWei, assets[p.environment]), amountOf(p.offsetWei, assets[p.environment]), p.gasWei === null ? null : weiToEth(p.gasWei), p.walletAddress, ...who(p.participant),
      p.fromAddress, p.txHash, p.nonce, p.blockNumber === null ? null : p.blockNumber.toString(), p.error, p.rewardIds.join(" "), p.createdAt, p.sentAt, p.confirmedAt, p.failedAt,
    ]);
  }
}
