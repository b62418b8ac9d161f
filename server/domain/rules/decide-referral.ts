// The referral of an item and its screen (rules/decide.ts): the pair's own referral (confirmed
// when a secret key sends a provisional one), or a new one through the anti-abuse screen
// (rules/screen.ts) and the fraud signals; without a referrer, the referred user's active
// referral. A secret key's referral supersedes the provisional ones of other referrers.
import type { Participant, Referral } from "../../db/generated";
import { evaluateSignals, signalRules } from "../referral-settings/fraud-signals";
import { newReferralWebhooks, referralWebhook } from "../webhooks/events";
import type { ClickFact } from "./decide";
import { activeReferralOf, bump, changed, hook, pairKey, type DecideRun, type ItemCtx } from "./decide-run";
import { REFERRAL_REASONS, screen } from "./screen";

/** The anti-abuse screen of this pair as the item makes it, against the referred user's other referrals. */
function screenPair(run: DecideRun, ctx: ItemCtx, by: Participant, to: Participant, click: ClickFact | undefined) {
  const { state } = run;
  const { settings } = state;
  const untrusted = ctx.item.untrusted;
  const others = (run.ofReferred.get(to.id) ?? []).filter((r) => r.referrerId !== by.id && r.status !== "REJECTED");
  const blocking = others.some((r) => untrusted || !r.provisional);
  const shared = (p: Participant) => !!p.walletAddress && state.sharedWallets.has(p.walletAddress);
  const signal = evaluateSignals(signalRules(settings), settings.clickVelocityPerHour, {
    click: click ? { visitorHash: click.visitorHash } : null,
    referrerVisitors: state.referrerVisitors.get(by.id) ?? new Set(),
    visitorClicksThisHour: click?.visitorClicksThisHour ?? 0,
    walletShared: shared(by) || shared(to),
  });
  const made = (run.madeToday.get(by.id) ?? 0) + (untrusted ? (run.provisionalToday.get(by.id) ?? 0) : 0);
  return { others, s: screen(settings, by, to, blocking, made, signal) };
}

/** A secret key's referral supersedes the provisional ones of other referrers. */
function supersede(run: DecideRun, others: Referral[]) {
  for (const r of others.filter((x) => x.provisional)) {
    r.status = "REJECTED";
    r.reason = REFERRAL_REASONS.SUPERSEDED;
    changed(run, r);
    if (r.createdAt >= run.dayStart) bump(run.provisionalToday, r.referrerId, -1);
    hook(run, referralWebhook("referral.rejected", { ...r }));
  }
}

/** A provisional referral the pair sends again with a secret key: confirmed, and counted or screened again as the secret key's. */
function confirmPair(run: DecideRun, ctx: ItemCtx, pair: Referral, by: Participant, to: Participant, click: ClickFact | undefined) {
  const { settings } = run.state;
  pair.provisional = false; // confirmed by a secret key
  const cap = settings.maxReferralsPerReferrerPerDay;
  if (pair.status !== "REJECTED") {
    if (pair.createdAt >= run.dayStart) {
      bump(run.provisionalToday, pair.referrerId, -1);
      if (cap !== null && (run.madeToday.get(pair.referrerId) ?? 0) >= cap) {
        // Confirmed, it counts among the referrer's referrals of the day: past the limit.
        pair.status = "REJECTED";
        pair.reason = REFERRAL_REASONS.REFERRER_DAILY_LIMIT;
        pair.updatedAt = run.now;
        hook(run, referralWebhook("referral.rejected", { ...pair }));
      } else bump(run.madeToday, pair.referrerId, 1);
    }
  } else if (pair.reason === REFERRAL_REASONS.ALREADY_REFERRED || pair.reason === REFERRAL_REASONS.REFERRER_DAILY_LIMIT) {
    // Rejected while provisional only for what provisional referrals do (another one came
    // first, the publishable keys' daily count): screened again as the secret key's, as
    // if it came first. Any other rejection (a signal, a reviewer's) stands.
    const { others, s: again } = screenPair(run, ctx, by, to, click);
    if (again.status !== "REJECTED") {
      pair.status = again.status;
      pair.reason = again.status === "PENDING" ? null : (again.reason ?? null);
      pair.updatedAt = run.now;
      if (pair.createdAt >= run.dayStart) bump(run.madeToday, pair.referrerId, 1);
      if (again.status === "FLAGGED") hook(run, [referralWebhook("referral.flagged", { ...pair })]);
      supersede(run, others);
    }
  }
  changed(run, pair);
  // Told once, with the status it now has (PENDING again for a pair reinstated above).
  hook(run, referralWebhook("referral.confirmed", { ...pair }));
}

/** A new referral of the pair, with the status of its screen. */
function newReferral(run: DecideRun, ctx: ItemCtx, by: Participant, to: Participant, click: ClickFact | undefined): Referral {
  const { item } = ctx;
  const { others, s } = screenPair(run, ctx, by, to, click);
  const referral: Referral = {
    id: run.opts.newId(),
    businessId: run.state.businessId,
    environment: run.state.environment,
    apiKeyId: item.apiKeyId,
    referrerId: by.id,
    referredId: to.id,
    source: item.source,
    campaign: item.campaign,
    status: s.status,
    reason: s.status === "PENDING" ? null : (s.reason ?? null),
    qualifiedAt: null,
    createdAt: run.now,
    updatedAt: run.now,
    provisional: item.untrusted,
    reversedAt: null,
  };
  if (click) run.out.referralClicks.push({ referralId: referral.id, clickId: click.id });
  run.referrals.set(referral.id, referral);
  run.byPair.set(pairKey(by.id, to.id), referral);
  run.ofReferred.set(to.id, [...(run.ofReferred.get(to.id) ?? []), referral]);
  if (s.status !== "REJECTED") bump(item.untrusted ? run.provisionalToday : run.madeToday, by.id, 1);
  hook(run, newReferralWebhooks(referral));
  if (!item.untrusted && s.status !== "REJECTED") supersede(run, others);
  return referral;
}

/** Sets ctx.referral (and ctx.created) once the parties are known. */
export function findReferral(run: DecideRun, ctx: ItemCtx) {
  const { item, referred } = ctx;
  // A click never takes an event's customer from the referral they have: without a named
  // referrer, the click's link credits only someone no one referred yet.
  if (ctx.referrer && !item.referrer && referred && activeReferralOf(run, referred.id)) ctx.referrer = null;
  const by = ctx.referrer;
  if (by && referred) {
    const click = item.clickId ? run.state.clicks.get(item.clickId) : undefined;
    const pair = run.byPair.get(pairKey(by.id, referred.id));
    if (pair) {
      ctx.referral = pair;
      if (pair.provisional && !item.untrusted) confirmPair(run, ctx, pair, by, referred, click);
    } else {
      ctx.referral = newReferral(run, ctx, by, referred, click);
      ctx.created = true;
    }
  } else if (referred) {
    ctx.referral = activeReferralOf(run, referred.id);
  }
}
