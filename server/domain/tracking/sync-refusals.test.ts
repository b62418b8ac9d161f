// A synchronous event naming an unknown referrer code is refused by the rules core alone (no
// lookup ahead of it): 422 UNKNOWN_REFERRAL_CODE, nothing written, the idempotency key free again;
// in a batch only that event fails and its neighbours are recorded.
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { upsertParticipant } from "../participants/service";
import { testBusiness } from "../../../tests/support/jobs-fixtures";
import { acceptEvent, acceptEventBatch } from "./service";

describe("synchronous events with an unknown referrer code", () => {
  it("are refused whole, alone or in a batch, and their key can be used again", async () => {
    const scope = await testBusiness();
    await db.businessConfig.create({ data: { businessId: scope.businessId, eventProcessing: "SYNC" } });
    const alice = await upsertParticipant(scope, { userId: "alice" });

    await expect(acceptEvent(scope, { eventName: "signup", referrer: "NOPE1234", idempotencyKey: "k-1" })).rejects.toMatchObject({ code: "UNKNOWN_REFERRAL_CODE" });
    expect(await db.trackedEvent.count({ where: { businessId: scope.businessId } })).toBe(0);
    expect(await db.idempotencyRecord.count({ where: { businessId: scope.businessId } })).toBe(0);

    const batch = await acceptEventBatch(scope, [
      { eventName: "signup", referrer: alice.referralCode, idempotencyKey: "b-1" },
      { eventName: "signup", referrer: "NOPE1234", idempotencyKey: "b-2" },
      { eventName: "visit" },
    ]);
    expect(batch).toMatchObject({ accepted: 2, failed: 1 });
    expect(batch.results[1]).toMatchObject({ index: 1, success: false, error: { code: "UNKNOWN_REFERRAL_CODE" } });
    expect((await db.trackedEvent.findMany({ where: { businessId: scope.businessId }, orderBy: { createdAt: "asc" } })).map((e) => e.eventName).sort()).toEqual(["signup", "visit"]);
    expect((await db.idempotencyRecord.findMany({ where: { businessId: scope.businessId } })).map((r) => r.key)).toEqual(["b-1"]);

    const again = await acceptEvent(scope, { eventName: "signup", referrer: alice.referralCode, idempotencyKey: "k-1" });
    expect(again).toMatchObject({ status: 200, body: { status: "PROCESSED" } });
  });
});
