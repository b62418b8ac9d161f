// Codes in words for business staff, in one place every page uses: reason codes (stored on
// events, referrals and rewards), reward states (the vocabulary earned / on hold / payable /
// paid out / reversed) and reversal outcomes. The codes stay in exports and the API; pages show
// these words.
const WORDS: Record<string, string> = {
  DAILY_CAP: "daily limit per person reached",
  PER_EVENT_CAP: "capped by the limit per event",
  INSUFFICIENT_POOL: "not enough funds in the pool",
  HELD_FOR_REVIEW: "held for your review",
  REJECTED_BY_REVIEW: "rejected in review",
  APPROVED_BY_REVIEW: "approved in review",
  REFERRAL_ALREADY_REWARDED: "this referral was already rewarded",
  REFERRAL_ALREADY_SETTLED: "this referral was already rewarded",
  REFERRAL_REJECTED: "the referral was rejected",
  REFERRAL_REVERSED: "the referral was reversed (a refund or chargeback) while this was on hold",
  NOT_A_QUALIFYING_EVENT: "not an event that earns rewards",
  ATTRIBUTION_WINDOW_EXPIRED: "too long after the referral",
  UNTRUSTED_EVENT: "sent from a browser key, which cannot earn rewards",
  SELF_REFERRAL: "people cannot refer themselves",
  ALREADY_REFERRED: "this person was already referred",
  BLOCKED_EMAIL_DOMAIN: "email domain is blocked",
  DISPOSABLE_EMAIL: "disposable email address",
  REFERRER_DAILY_LIMIT: "referrer reached the daily referral limit",
  REFERRAL_SETTLED_ELSEWHERE: "this referral was already rewarded",
  UNSPECIFIED: "no reason recorded",
  SAME_VISITOR: "signed up from the same device and network as the referrer's own visits",
  CLICK_VELOCITY: "too many link clicks from one visitor in an hour",
  WALLET_SHARED: "payout wallet shared with another participant",
  NO_CLICK: "no click on a referral link before the sign-up",
  PRICE_UNAVAILABLE: "waiting for a price of its currency in ETH; rewarded once one exists",
  NO_AMOUNT: "no amount on the event, so a percent commission pays nothing",
  REVERSAL_NOT_ALLOWED: "a reversal event sent with a key without the rewards:write scope: nothing reversed",
};

/** Codes with a count, e.g. "REVERSED:2" on a reversal event. */
const COUNTED: Record<string, (n: string) => string> = {
  REVERSED: (n) => `reversal event: ${n} reward${n === "1" ? "" : "s"} reversed`,
};

/** "PER_EVENT_CAP,DAILY_CAP" → "capped by the limit per event; daily limit per person reached". Unknown codes pass through. */
export function reasonText(reason: string | null | undefined): string {
  if (!reason) return "";
  // A reviewer's note (free text) is shown as written; only reason codes are put into words.
  if (!/^[A-Z0-9_]+(:\d+)?(\s*,\s*[A-Z0-9_]+(:\d+)?)*$/.test(reason.trim())) return reason;
  return reason
    .split(",")
    .map((r) => {
      const code = r.trim();
      const [head, count] = code.split(":");
      if (count !== undefined && COUNTED[head]) return COUNTED[head](count);
      return WORDS[code] ?? code.toLowerCase().replace(/_/g, " ");
    })
    .join("; ");
}

type RewardState = "HELD_FOR_REVIEW" | "REFUSED" | "ON_HOLD" | "PAYABLE" | "IN_PAYOUT" | "PAID_OUT" | "REVERSED";

/** A reward's state as a label and a badge colour. Earned rewards are on hold, payable, being paid out or paid out. */
export const REWARD_STATE: Record<RewardState, { word: string; color: "green" | "amber" | "red" | "blue" | "indigo" | "gray"; means: string }> = {
  HELD_FOR_REVIEW: { word: "Held for review", color: "amber", means: "waits for your review; nothing earned yet" },
  REFUSED: { word: "Refused", color: "red", means: "not earned" },
  ON_HOLD: { word: "On hold", color: "amber", means: "earned, in the hold period before it can be paid out" },
  PAYABLE: { word: "Payable", color: "blue", means: "earned, paid out at the next payout run" },
  IN_PAYOUT: { word: "Being paid out", color: "blue", means: "earned, in a payout being sent" },
  PAID_OUT: { word: "Paid out", color: "green", means: "earned and sent to the participant's wallet" },
  REVERSED: { word: "Reversed", color: "gray", means: "taken back by a reversal" },
};

/** A reward's status where its payout state is not at hand (event views): PAID means earned, not paid out. */
export const REWARD_STATUS_WORD: Record<"PAID" | "HELD" | "REFUSED", string> = { PAID: "Earned", HELD: "Held for review", REFUSED: "Refused" };

export const REVERSAL_OUTCOME: Record<"RETURNED_TO_POOL" | "CLAWBACK", string> = {
  RETURNED_TO_POOL: "Returned to the pool",
  CLAWBACK: "Clawback: offset from their next payouts",
};

export const REVERSAL_SOURCE: Record<"EVENT" | "API" | "DASHBOARD", string> = {
  EVENT: "reversal event",
  API: "API",
  DASHBOARD: "dashboard",
};
