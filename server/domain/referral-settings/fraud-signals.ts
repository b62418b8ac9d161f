// Fraud signals from link clicks and payout wallets, each a referral-settings rule (OFF, FLAG:
// hold for review, REJECT). `evaluateSignals` is pure (facts in, verdict out); the rules core
// loads the facts of the rules that are on (rules/state.ts) and its screen applies the verdict
// (rules/screen.ts).
//   SAME_VISITOR    the referral's click came from a visitor (IP + user agent, hashed per day) already
//                   seen for the referrer: the click that brought the referrer, the click of
//                   another of the referrer's referrals (friends who all come from one machine),
//                   or the device that opened the referrer's own portal session
//   CLICK_VELOCITY  that visitor has more than clickVelocityPerHour counted clicks in the click's
//                   hour, across the business's links
//   WALLET_SHARED   the referrer's or the referred user's payout wallet is set on another
//                   participant of the business and environment
//   NO_CLICK        the referral names no click of the business (a link-only program)
import type { ReferralSettings } from "../../db/generated";

const SIGNALS = ["SAME_VISITOR", "CLICK_VELOCITY", "WALLET_SHARED", "NO_CLICK"] as const;
type Signal = (typeof SIGNALS)[number];
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

/** The referral settings the signals read. */
export type SignalSettings = Pick<ReferralSettings, "sameVisitorRule" | "clickVelocityRule" | "walletSharedRule" | "noClickRule" | "clickVelocityPerHour">;

export const signalRules = (s: SignalSettings): SignalRules => ({
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
