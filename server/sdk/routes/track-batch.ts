// POST /track/batch: up to 100 events in one transaction, one result per event.
import { trackBatchInput } from "../../domain/tracking/schemas";
import { acceptEventBatch } from "../../domain/tracking/service";
import { AppError } from "../../shared/errors";
import { withSdkKey } from "../with-sdk-key";
import { objectBody } from "./body";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = withSdkKey({
  POST: async (ctx) => {
    if (ctx.req.headers.get("idempotency-key")) {
      throw new AppError("VALIDATION_ERROR", "On /track/batch idempotency is per event: set idempotencyKey on each event", [
        { path: "Idempotency-Key", message: "not supported on batches" },
      ]);
    }
    const { events } = trackBatchInput.parse(objectBody(ctx));
    return { body: await acceptEventBatch(ctx.scope, events) };
  },
}, { scope: "track", perItemField: "events" });
