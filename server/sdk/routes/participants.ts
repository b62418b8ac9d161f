// POST /sdk/participants: upsert a participant and return the referral code it shares.
import { upsertParticipantInput } from "../../domain/participants/schemas";
import { upsertParticipant } from "../../domain/participants/service";
import { withSdkKey } from "../with-sdk-key";
import { objectBody } from "./body";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = withSdkKey({
  POST: async (ctx) => ({ body: await upsertParticipant(ctx.scope, upsertParticipantInput.parse(objectBody(ctx))) }),
}, { scope: "participants:write" });
