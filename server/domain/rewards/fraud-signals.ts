// Fraud signals from link clicks and payout wallets, each a referral-settings rule (OFF, FLAG:
// hold for review, REJECT). `evaluateSignals` is pure (facts in, verdict out); `loadSignalFacts`
// reads only the facts of the rules that are on; `screenSignals` is the one entry the anti-abuse
// screen calls.
//   SAME_VISITOR    the referral's click came from a visitor (IP + user agent, hashed per day) already
//                   seen for the referrer: the click that brought the referrer, or the click of
//                   another of the referrer's referrals (friends who all come from one machine)
//   CLICK_VELOCITY  that visitor has more than clickVelocityPerHour counted clicks in the click's
//                   hour, across the business's links
//   WALLET_SHARED   the referrer's or the referred user's payout wallet is set on another
//                   participant of the business and environment
//   NO_CLICK        the referral names no click of the business (a link-only program)
import type { Tx } from "../../db/client";
import type { Participant, ReferralSettings } from "../../db/generated";

export const SIGNALS = ["SAME_VISITOR", "CLICK_VELOCITY", "WALLET_SHARED", "NO_CLICK"] as const;
export type Signal = (typeof SIGNALS)[number];
export type SignalRule = "OFF" | "FLAG" | "REJECT";
export type SignalRules = Record<Signal, SignalRule>;

export interface SignalFacts {
  /** The referral's click (null: none, or not one of the business's). */
  click: { visitorHash: string } | null;
  /** Visitor hashes already seen for the referrer (see SAME_VISITOR). */
  referrerVisitors: ReadonlySet<string>;
  /** Counted clicks of the click's visitor in the click's hour, across links. */
  visitorClicksThisHour: number;
  walletShared: boolean;
}

export interface SignalVerdict {
  status: "FLAGGED" | "REJECTED";
  /** The signals that fired, comma-separated (e.g. "SAME_VISITOR,CLICK_VELOCITY"). */
  reason: string;
}

export const signalRules = (s: Pick<ReferralSettings, "sameVisitorRule" | "clickVelocityRule" | "walletSharedRule" | "noClickRule">): SignalRules => ({
  SAME_VISITOR: s.sameVisitorRule as SignalRule,
  CLICK_VELOCITY: s.clickVelocityRule as SignalRule,
  WALLET_SHARED: s.walletSharedRule as SignalRule,
  NO_CLICK: s.noClickRule as SignalRule,
});

/** Which signals fire, and the verdict of the rules that are on: REJECT wins over FLAG; null when none fired. */
export function evaluateSignals(rules: SignalRules, velocityPerHour: number, f: SignalFacts): SignalVerdict | null {
  const fired: Record<Signal, boolean> = {
    SAME_VISITOR: !!f.click && f.referrerVisitors.has(f.click.visitorHash),
    CLICK_VELOCITY: !!f.click && f.visitorClicksThisHour > velocityPerHour,
    WALLET_SHARED: f.walletShared,
    NO_CLICK: !f.click,
  };
  const hits = SIGNALS.filter((s) => rules[s] !== "OFF" && fired[s]);
  if (!hits.length) return null;
  return { status: hits.some((s) => rules[s] === "REJECT") ? "REJECTED" : "FLAGGED", reason: hits.join(",") };
}

interface Scope {
  businessId: string;
  environment: "TEST" | "LIVE";
}

async function walletShared(tx: Tx, scope: Scope, who: Pick<Participant, "id" | "walletAddress">[]): Promise<boolean> {
  for (const p of who) {
    if (!p.walletAddress) continue;
    const other = await tx.participant.findFirst({
      where: { businessId: scope.businessId, environment: scope.environment, walletAddress: p.walletAddress, id: { not: p.id } },
      select: { id: true },
    });
    if (other) return true;
  }
  return false;
}

/** The facts the rules that are on need (nothing is read for rules that are off). */
export async function loadSignalFacts(tx: Tx, scope: Scope, rules: SignalRules, input: { referrer: Participant; referred: Participant; clickId: string | null }): Promise<SignalFacts> {
  const click = input.clickId
    ? await tx.linkClick.findFirst({ where: { id: input.clickId, businessId: scope.businessId, environment: scope.environment }, select: { visitorHash: true, hour: true } })
    : null;
  const referrerVisitors = new Set<string>();
  if (click && rules.SAME_VISITOR !== "OFF") {
    // The clicks linked to the referrer's own referral and to the referrer's other referrals.
    const rows = await tx.$queryRawUnsafe<{ h: string }[]>(
      `SELECT DISTINCT c."visitorHash" AS h FROM "Referral" r
         JOIN "ReferralClick" rc ON rc."referralId" = r.id
         JOIN "LinkClick" c ON c.id = rc."clickId"
        WHERE (r."referredId" = $1 OR r."referrerId" = $1) AND r."referredId" <> $2`,
      input.referrer.id,
      input.referred.id,
    );
    for (const r of rows) referrerVisitors.add(r.h);
  }
  const visitorClicksThisHour =
    click && rules.CLICK_VELOCITY !== "OFF"
      ? await tx.linkClick.count({ where: { businessId: scope.businessId, environment: scope.environment, visitorHash: click.visitorHash, hour: click.hour, counted: true } })
      : 0;
  const shared = rules.WALLET_SHARED !== "OFF" ? await walletShared(tx, scope, [input.referrer, input.referred]) : false;
  return { click, referrerVisitors, visitorClicksThisHour, walletShared: shared };
}

/** The anti-abuse screen's one call: the verdict of the signal rules for a referral about to be recorded. */
export async function screenSignals(
  tx: Tx,
  settings: Pick<ReferralSettings, "sameVisitorRule" | "clickVelocityRule" | "walletSharedRule" | "noClickRule" | "clickVelocityPerHour">,
  scope: Scope,
  input: { referrer: Participant; referred: Participant; clickId: string | null },
): Promise<SignalVerdict | null> {
  const rules = signalRules(settings);
  if (SIGNALS.every((s) => rules[s] === "OFF")) return null;
  return evaluateSignals(rules, settings.clickVelocityPerHour, await loadSignalFacts(tx, scope, rules, input));
}
