// POST /track: one event, processed now or queued (see server/domain/tracking/service.ts, which
// validates the body and reconciles the Idempotency-Key header with the body's idempotencyKey).
import { flushClicks } from "../../domain/links/clicks";
import { visitorOf } from "../../domain/links/visitor-click";
import { acceptEvent } from "../../domain/tracking/service";
import { withSdkKey } from "../with-sdk-key";
import { objectBody } from "./body";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = withSdkKey({
  POST: async (ctx) => {
    const body = objectBody(ctx);
    // A click this instance still buffers is written first, so the event's referral finds it.
    if (typeof body.clickId === "string") await flushClicks();
    return acceptEvent(ctx.scope, body, { idempotencyKeyHeader: ctx.req.headers.get("idempotency-key"), visitor: visitorOf(ctx.req) });
  },
}, { scope: "track" });
