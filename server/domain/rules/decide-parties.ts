// Who the parties of an item are (rules/decide.ts): the referrer (the link click's participant,
// else the code or handle sent; unknown → UNKNOWN_REFERRAL_CODE) and the referred user (by
// metadata.referredUserId, else referredUserEmail; created when new, missing fields filled).
import type { Participant } from "../../db/generated";
import { AppError } from "../../shared/errors";
import type { ClickFact, RuleItem, RulesState } from "./decide";
import type { DecideRun, ItemCtx } from "./decide-run";

/**
 * The click whose link credits an item's referral: the click it names (or its visitor's, when it
 * names none: links/visitor-click.ts). The click wins over the code sent, for an apply and an
 * event alike; an unknown click leaves the code to decide. An event naming no referrer is
 * credited by its click only when its referred user has no referral yet (decide-referral.ts).
 */
export const creditingClick = (clicks: RulesState["clicks"], item: Pick<RuleItem, "clickId" | "referrer" | "event">): ClickFact | undefined =>
  item.clickId && (item.referrer || item.event) ? clicks.get(item.clickId) : undefined;

/** Metadata identity fields: absent when falsy (as always), text, or malformed. */
export const textOrAbsent = (v: unknown): string | undefined | null => (!v ? undefined : typeof v === "string" ? v : null);

/** An item that cannot be decided: the run ends before it (haltOnError), or it answers its error. Always false. */
function stop(run: DecideRun, item: RuleItem, error: () => AppError): false {
  if (run.opts.haltOnError === true) run.ended = true;
  else run.out.outcomes.push({ key: item.key, kind: "error", eventId: item.event?.id ?? null, error: error() });
  return false;
}

function referrerOf(run: DecideRun, raw: string): Participant | undefined {
  const v = raw.trim();
  if (!v || v.length > 64) return undefined;
  return run.byCode.get(v.toUpperCase()) ?? run.byHandle.get(v.toLowerCase());
}

/**
 * Fills what a known referred user lacks (participants/service fillMissing): the name follows the
 * latest; identity fields are only filled. Never from a publishable key: anyone can send one, and
 * binding a user id or an email to someone else's participant would take their identity.
 */
function fillMissing(run: DecideRun, p: Participant, email: string | undefined, userId: string | undefined, name: unknown) {
  let touched = false;
  if (name && name !== p.name) {
    p.name = name as string;
    touched = true;
  }
  if (userId && !p.externalId && !run.byUserId.has(userId)) {
    p.externalId = userId;
    run.byUserId.set(userId, p);
    touched = true;
  }
  if (email && !p.email && !run.byEmail.has(email)) {
    p.email = email;
    run.byEmail.set(email, p);
    touched = true;
  }
  if (touched) {
    p.updatedAt = run.now;
    // A participant this run inserts is inserted as it was at its item (its chunk may be written already): later fills are updates.
    run.out.participantUpdates.set(p.id, p);
  }
}

function newParticipant(run: DecideRun, email: string | undefined, userId: string | undefined, name: unknown): Participant {
  const { businessId, environment } = run.state;
  const p: Participant = {
    id: run.opts.newId(),
    businessId,
    environment,
    externalId: userId ?? null,
    email: email ?? null,
    name: (name as string | null | undefined) ?? null,
    handle: null,
    referralCode: run.opts.newCode(),
    walletAddress: null,
    walletFailure: null,
    walletFailedAt: null,
    stripeCustomerId: null,
    walletVerified: false,
    walletVerifiedAt: null,
    createdAt: run.now,
    updatedAt: run.now,
  };
  run.byId.set(p.id, p);
  run.byCode.set(p.referralCode, p);
  if (userId) run.byUserId.set(userId, p);
  if (email) run.byEmail.set(email, p);
  run.out.participants.push({ at: run.at, row: { ...p } });
  return p;
}

/** Sets ctx.referrer and ctx.referred for an item that names no referral. False: the item stopped (its error answered, or the run ended). */
export function findParties(run: DecideRun, ctx: ItemCtx): boolean {
  const { item } = ctx;
  const credited = creditingClick(run.state.clicks, item);
  const byClick = credited ? run.byId.get(credited.participantId) : undefined;
  if (byClick) ctx.referrer = byClick;
  else if (item.referrer) {
    ctx.referrer = referrerOf(run, item.referrer) ?? null;
    if (!ctx.referrer) return stop(run, item, () => new AppError("UNKNOWN_REFERRAL_CODE", `No participant has the referral code or handle "${item.referrer}"`));
  }
  const email = textOrAbsent(item.identity.email);
  const userId = textOrAbsent(item.identity.userId);
  const name = item.identity.name;
  if (email === null || userId === null || ((email || userId) && name !== undefined && name !== null && typeof name !== "string")) {
    return stop(run, item, () => new AppError("INTERNAL", "The event's metadata names the referred user with a value that is not text"));
  }
  if (email || userId) {
    const known = (userId ? run.byUserId.get(userId) : undefined) ?? (email ? run.byEmail.get(email) : undefined) ?? null;
    if (known && !item.untrusted) fillMissing(run, known, email, userId, name);
    ctx.referred = known ?? newParticipant(run, email, userId, name);
  } else if (!item.event) {
    return stop(run, item, () => new AppError("VALIDATION_ERROR", "A participant needs a userId or an email"));
  }
  return true;
}
