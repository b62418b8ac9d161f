// POST /track: one event, processed now or queued (see server/domain/tracking/service.ts).
import { pickIdempotencyKey } from "../../domain/tracking/idempotency";
import { trackInput } from "../../domain/tracking/schemas";
import { acceptEvent } from "../../domain/tracking/service";
import { withSdkKey } from "../with-sdk-key";
import { objectBody } from "./body";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = withSdkKey({
  POST: async (ctx) => {
    const input = trackInput.parse(objectBody(ctx));
    const idempotencyKey = pickIdempotencyKey(input.idempotencyKey, ctx.req.headers.get("idempotency-key"));
    return acceptEvent(ctx.scope, input, { idempotencyKey });
  },
});
