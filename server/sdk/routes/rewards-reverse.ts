// POST /sdk/rewards/reverse: a refund or chargeback reverses the referral's rewards.
import { reverseRewardsInput } from "../../domain/reversals/reversal-schemas";
import { reverseRewards } from "../../domain/reversals/reversals";
import { pickIdempotencyKey } from "../../shared/idempotency";
import { withSdkKey } from "../with-sdk-key";
import { objectBody } from "./body";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = withSdkKey({
  POST: async (ctx) => {
    const input = reverseRewardsInput.parse(objectBody(ctx));
    const idempotencyKey = pickIdempotencyKey(input.idempotencyKey, ctx.req.headers.get("idempotency-key"));
    return reverseRewards(ctx.scope, { ...input, idempotencyKey });
  },
}, { scope: "rewards:write" });
