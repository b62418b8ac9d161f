// POST /sdk/participants: upsert a participant and return the referral code it shares. A payout
// wallet set, changed or cleared here is recorded in the audit log with the API key as the actor,
// in the transaction of the change (docs/trust.md).
import { hashIp, recordAudit } from "../../domain/audit/service";
import { upsertParticipantInput } from "../../domain/participants/schemas";
import { upsertParticipant } from "../../domain/participants/service";
import { CLIENT_IP_HEADER } from "../../shared/client-ip";
import { withSdkKey } from "../with-sdk-key";
import { objectBody } from "./body";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = withSdkKey({
  POST: async (ctx) => ({
    body: await upsertParticipant(ctx.scope, upsertParticipantInput.parse(objectBody(ctx)), (tx, change) =>
      recordAudit(tx, {
        businessId: ctx.scope.businessId,
        environment: ctx.scope.environment,
        actor: { userId: null, email: null, apiKeyId: ctx.key.apiKeyId },
        action: "participants.wallet",
        target: `participantId:${change.participantId}`,
        before: change.before,
        after: change.after,
        ipHash: hashIp(ctx.req.headers.get(CLIENT_IP_HEADER)),
      }),
    ),
  }),
}, { scope: "participants:write" });
