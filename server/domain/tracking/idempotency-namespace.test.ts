// Idempotency keys of publishable-key callers (anyone holding the browser's key) live apart from
// the business's own: claiming "order-1001" from a browser neither blocks the server's request with
// that key (409) nor makes it replay the browser's answer (its event never recorded). Each side
// still replays its own. Both the queued and the synchronous paths.
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { testBusiness } from "../../../tests/support/jobs-fixtures";
import { acceptEvent } from "./service";

describe("idempotency keys of publishable and secret keys", () => {
  it.each(["ASYNC", "SYNC"] as const)("are separate namespaces (%s)", async (eventProcessing) => {
    const scope = await testBusiness();
    await db.businessConfig.create({ data: { businessId: scope.businessId, eventProcessing } });
    const browser = { ...scope, untrusted: true };
    const planted = await acceptEvent(browser, { eventName: "refund", idempotencyKey: "order-1001" });
    expect(planted.status).toBeLessThan(300);
    const real = await acceptEvent(scope, { eventName: "refund", idempotencyKey: "order-1001", metadata: { referredUserEmail: "buyer@example.com" } });
    expect(real.status, JSON.stringify(real.body)).toBeLessThan(300);
    const eventId = (r: { body: unknown }) => (r.body as { eventId: string }).eventId;
    expect(eventId(real)).not.toBe(eventId(planted));
    expect(await db.trackedEvent.count({ where: { businessId: scope.businessId } })).toBe(2);
    // Each caller's retry replays its own answer.
    expect(eventId(await acceptEvent(scope, { eventName: "refund", idempotencyKey: "order-1001", metadata: { referredUserEmail: "buyer@example.com" } }))).toBe(eventId(real));
    expect(eventId(await acceptEvent(browser, { eventName: "refund", idempotencyKey: "order-1001" }))).toBe(eventId(planted));
  });
});
