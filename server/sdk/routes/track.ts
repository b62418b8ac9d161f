// POST /track: one event, processed now or queued (see server/domain/tracking/service.ts, which
// validates the body and reconciles the Idempotency-Key header with the body's idempotencyKey).
import { acceptEvent } from "../../domain/tracking/service";
import { withSdkKey } from "../with-sdk-key";
import { objectBody } from "./body";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = withSdkKey({
  POST: async (ctx) => acceptEvent(ctx.scope, objectBody(ctx), { idempotencyKeyHeader: ctx.req.headers.get("idempotency-key") }),
}, { scope: "track" });
