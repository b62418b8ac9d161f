// Reason codes (stored on events, referrals and rewards) in words for business staff. The codes
// stay visible in exports and the API; pages show these sentences.
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
  NOT_A_QUALIFYING_EVENT: "not an event that earns rewards",
  ATTRIBUTION_WINDOW_EXPIRED: "too long after the referral",
  UNTRUSTED_EVENT: "sent from a browser key, which cannot earn rewards",
  SELF_REFERRAL: "people cannot refer themselves",
  ALREADY_REFERRED: "this person was already referred",
  BLOCKED_EMAIL_DOMAIN: "email domain is blocked",
  DISPOSABLE_EMAIL: "disposable email address",
  REFERRER_DAILY_LIMIT: "referrer reached the daily referral limit",
  SAME_VISITOR: "signed up from the same device and network as the referrer's own visits",
  CLICK_VELOCITY: "too many link clicks from one visitor in an hour",
  WALLET_SHARED: "payout wallet shared with another participant",
  NO_CLICK: "no click on a referral link before the sign-up",
};

/** "PER_EVENT_CAP,DAILY_CAP" → "capped by the limit per event; daily limit per person reached". Unknown codes pass through. */
export function reasonText(reason: string | null | undefined): string {
  if (!reason) return "";
  return reason
    .split(",")
    .map((r) => WORDS[r.trim()] ?? r.trim().toLowerCase().replace(/_/g, " "))
    .join("; ");
}
