// POST /track/batch: up to 100 events, one result per event; charged one rate-limit unit per
// event, and bounded in batches in progress per key and per business (batch-slots.ts).
import { trackBatchInput } from "../../domain/tracking/schemas";
import { acceptEventBatch } from "../../domain/tracking/service";
import { visitorOf } from "../../domain/links/visitor-click";
import { AppError } from "../../shared/errors";
import { withBatchSlot } from "../batch-slots";
import { withSdkKey } from "../with-sdk-key";
import { objectBody } from "./body";

/** One unit per event sent (what the batch asks of the service, valid or not). */
const eventCount = (body: unknown) => {
  const events = (body as { events?: unknown } | null)?.events;
  return Array.isArray(events) ? events.length : 1;
};

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = withSdkKey({
  POST: async (ctx) => {
    if (ctx.req.headers.get("idempotency-key")) {
      throw new AppError("VALIDATION_ERROR", "On /track/batch idempotency is per event: set idempotencyKey on each event", [
        { path: "Idempotency-Key", message: "not supported on batches" },
      ]);
    }
    const { events } = trackBatchInput.parse(objectBody(ctx));
    return { body: await withBatchSlot(ctx.key, () => acceptEventBatch(ctx.scope, events, visitorOf(ctx.req))) };
  },
}, { scope: "track", perItemField: "events", cost: eventCount });
