// POST /sdk/referrals/apply: referredUserId → synchronous; only referredUserEmail → queued.
import { applyReferralInput } from "../../domain/referrals/schemas";
import { applyReferral } from "../../domain/referrals/service";
import { flushClicks } from "../../domain/links/clicks";
import { visitorOf } from "../../domain/links/visitor-click";
import { pickIdempotencyKey } from "../../shared/idempotency";
import { withSdkKey } from "../with-sdk-key";
import { objectBody } from "./body";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = withSdkKey({
  POST: async (ctx) => {
    const input = applyReferralInput.parse(objectBody(ctx));
    // A click this instance still buffers is written first, so attribution finds it (a click of
    // the request's visitor, when none is named: visitor-click.ts flushes before its lookup).
    if (input.clickId) await flushClicks();
    const idempotencyKey = pickIdempotencyKey(input.idempotencyKey, ctx.req.headers.get("idempotency-key"));
    return applyReferral(ctx.scope, { ...input, idempotencyKey }, visitorOf(ctx.req));
  },
}, { scope: "referrals:write" });
