// The business API: one router per area. The dashboard calls these procedures over tRPC and
// the same procedures answer the REST paths of the interface (app/business/[...path]/route.ts).
import { apiKeysRouter } from "./api-keys";
import { configRouter } from "./config";
import { membersRouter } from "./members";
import { meRouter } from "./me";
import { fundingRouter } from "./funding";
import { tiersRouter } from "./tiers";
import { referralsRouter } from "./referrals";
import { eventsRouter } from "./events";
import { rewardsRouter } from "./rewards";
import { analyticsRouter } from "./analytics";
import { alertsRouter } from "./alerts";
import { participantsRouter } from "./participants";
import { payoutsRouter } from "./payouts";
import { webhooksRouter } from "./webhooks";
import { auditLogRouter } from "./audit-log";
import { commissionRulesRouter } from "./commission-rules";
import { proofsRouter } from "./proofs";
import { integrationsRouter } from "./integrations";
import { emailsRouter } from "./emails";
import { router } from "../trpc/init";

export const appRouter = router({
  members: membersRouter,
  apiKeys: apiKeysRouter,
  config: configRouter,
  me: meRouter,
  funding: fundingRouter,
  tiers: tiersRouter,
  referrals: referralsRouter,
  events: eventsRouter,
  rewards: rewardsRouter,
  analytics: analyticsRouter,
  alerts: alertsRouter,
  participants: participantsRouter,
  payouts: payoutsRouter,
  webhooks: webhooksRouter,
  auditLog: auditLogRouter,
  commissionRules: commissionRulesRouter,
  proofs: proofsRouter,
  integrations: integrationsRouter,
  emails: emailsRouter,
});

export type AppRouter = typeof appRouter;
