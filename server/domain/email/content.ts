// What each kind of email says (pure): subject, heading, paragraphs, lines and one action, from
// the facts the outbox row keeps and the names read when it is rendered. Amounts are in the
// environment's asset (as the webhook payloads and the API state them) and follow the display
// rule of shared/display-money.ts, with the asset's symbol. Every link points at APP_URL.
import { ethText } from "../../shared/display-money";
import { env } from "../../shared/env";
import { amountOf, type Asset } from "../../shared/asset";
import type { EmailKind } from "./kinds";

export interface EmailContent {
  subject: string;
  heading: string;
  paragraphs: string[];
  /** A list under the paragraphs (a digest's rewards). */
  items?: string[];
  action?: { label: string; url: string };
}

interface ContentFacts {
  kind: EmailKind;
  environment: "TEST" | "LIVE";
  businessId: string;
  businessName: string;
  /** The referrer's name, when the email is to one. */
  name: string | null;
  data: Record<string, unknown>;
  /** The environment's asset: the amounts' words. */
  asset: Asset;
  /** REWARD_EARNED: the rewards the digest gathered (amountWei: base units of the asset). */
  rewards?: { amountWei: bigint; kind: string; createdAt: Date }[];
}

/** A subject is one line (a CR/LF in a name stays text, never a header), at most 200 characters. */
export const oneLine = (s: string, max = 200) => s.replace(/[\r\n\t\u2028\u2029]+/g, " ").trim().slice(0, max);

const str = (v: unknown, fallback = "") => (typeof v === "string" ? v : fallback);
/** The hosted page where a referrer asks for a link to their portal. */
const portalSignInUrl = (businessId: string) => `${env.appUrl}/portal/sign-in?business=${encodeURIComponent(businessId)}`;
/** Stands for the one-time portal link of a PORTAL_SIGN_IN email: made when it is sent, never kept. */
export const PORTAL_LINK_SLOT = "__PORTAL_LINK__";

/** The kept copy as the log shows it: the link's place says it was not kept (its button leads to the sign-in page). */
export function withoutPortalLink(body: string | null, businessId: string): string | null {
  return body === null ? null : body.replaceAll(`href="${PORTAL_LINK_SLOT}"`, `href="${portalSignInUrl(businessId)}"`).replaceAll(PORTAL_LINK_SLOT, "[the one-time link, not kept]");
}

const REWARD_KIND_WORDS: Record<string, string> = { REFERRAL: "a referral", BONUS: "a welcome bonus", COMMISSION: "a commission", MANUAL: "a reward from the team" };

export function emailContent(f: ContentFacts): EmailContent {
  const biz = oneLine(f.businessName, 100);
  const hello = f.name ? `Hello ${oneLine(f.name, 100)},` : "Hello,";
  const portal = { label: "Open your portal", url: portalSignInUrl(f.businessId) };
  const c = contentOf(f, biz, hello, portal);
  return { ...c, subject: oneLine(f.environment === "TEST" ? `[TEST] ${c.subject}` : c.subject) };
}

function contentOf(f: ContentFacts, biz: string, hello: string, portal: EmailContent["action"]): EmailContent {
  const d = f.data;
  const words = (units: bigint) => ethText(amountOf(units, f.asset), f.asset.symbol);
  const amount = ethText(str(d.amountEth, "0"), f.asset.symbol);
  switch (f.kind) {
    case "REWARD_EARNED": {
      const rewards = f.rewards ?? [];
      const totalText = words(rewards.reduce((n, r) => n + r.amountWei, 0n));
      return {
        subject: `You earned ${totalText} from ${biz}`,
        heading: "You earned a reward",
        paragraphs: [hello, rewards.length === 1 ? `You earned ${totalText} from ${biz}.` : `You earned ${totalText} from ${biz} in ${rewards.length} rewards.`],
        items: rewards.map((r) => `${words(r.amountWei)} for ${REWARD_KIND_WORDS[r.kind] ?? "a reward"}, ${r.createdAt.toISOString().slice(0, 16).replace("T", " ")} UTC`),
        action: portal,
      };
    }
    case "PAYOUT_SENT":
      return {
        subject: `${biz} sent you ${amount}`,
        heading: "A payout is on its way",
        paragraphs: [hello, `${biz} sent ${amount} to your wallet ${str(d.walletAddress)}.`, `Transaction: ${str(d.txHash, "pending")}`],
        action: portal,
      };
    case "PAYOUT_FAILED":
      return {
        subject: `A payout from ${biz} failed`,
        heading: "A payout could not be sent",
        paragraphs: [hello, `${biz} could not send you ${amount}: ${oneLine(str(d.error, "the transaction failed"), 300)}.`, "What to do: check the wallet address in your portal, or set another wallet; the payout is tried again once it changes."],
        action: { label: "Change your wallet", url: portalSignInUrl(f.businessId) },
      };
    case "WALLET_MISSING":
      return {
        subject: `${biz} owes you ${amount}: add a wallet`,
        heading: "Add a wallet to be paid",
        paragraphs: [hello, `${biz} owes you ${amount}, but you have no wallet set to receive it. Add one in your portal.`],
        action: { label: "Add a wallet", url: portalSignInUrl(f.businessId) },
      };
    case "REWARD_REVERSED":
      return {
        subject: `A reward from ${biz} was reversed`,
        heading: "A reward was reversed",
        paragraphs: [hello, `${biz} reversed ${amount} of a reward${d.reason ? `: ${oneLine(str(d.reason), 300)}` : ""}.`],
        action: portal,
      };
    case "PORTAL_SIGN_IN":
      return {
        subject: `Your link to ${biz}'s referral portal`,
        heading: "Sign in to your portal",
        paragraphs: [hello, `Here is your link to ${biz}'s referral portal. It works once, for 24 hours. If you did not ask for it, ignore this email.`],
        action: { label: "Open your portal", url: PORTAL_LINK_SLOT },
      };
    default:
      return staffContent(f, biz);
  }
}

function staffContent(f: ContentFacts, biz: string): EmailContent {
  const d = f.data;
  const text = (v: unknown) => ethText(str(v, "0"), f.asset.symbol);
  const dashboard = (path: string, label: string) => ({ label, url: `${env.appUrl}/dashboard${path}` });
  switch (f.kind) {
    case "LOW_POOL":
      return {
        subject: `${biz}: the reward pool is low`,
        heading: "The reward pool is low",
        paragraphs: [`The ${f.environment} pool of ${biz} holds ${text(d.balanceEth)}, below the alert threshold of ${text(d.thresholdEth)}. Rewards stop when it is empty.`],
        action: dashboard("/balance", "Add funds"),
      };
    case "PAYOUT_RUN_FAILED":
      return {
        subject: `${biz}: a payout failed`,
        heading: "A payout failed",
        paragraphs: [`A payout of ${text(d.amountEth)} to ${str(d.walletAddress)} failed: ${oneLine(str(d.error, "unknown error"), 300)}.`],
        action: dashboard("/payouts", "See payouts"),
      };
    case "WEBHOOK_DISABLED":
      return {
        subject: `${biz}: a webhook endpoint was disabled`,
        heading: "A webhook endpoint was disabled",
        paragraphs: [oneLine(str(d.message), 500)],
        action: dashboard("/webhooks", "See webhooks"),
      };
    case "REVIEW_QUEUE":
      return {
        subject: `${biz}: events wait for review`,
        heading: "Events wait for review",
        paragraphs: [`${Number(d.count ?? 0)} events wait for a decision.`],
        action: dashboard("/events", "Review events"),
      };
    default:
      return {
        subject: `${biz}: the Stripe connection failed`,
        heading: "The Stripe connection failed",
        paragraphs: [oneLine(str(d.message, "Stripe refused a request."), 500)],
        action: dashboard("/integrations", "See the Stripe deliveries"),
      };
  }
}
