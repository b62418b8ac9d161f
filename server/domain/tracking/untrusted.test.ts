// Events recorded through a publishable (browser) key are untrusted: they may create and link a
// referral, but never qualify it nor pay; a later event from a trusted caller does.
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { ethToWei, weiToDb } from "../../shared/money";
import { creditLedger } from "../ledger/service";
import { upsertParticipant } from "../participants/service";
import { testBusiness } from "../../../tests/support/jobs-fixtures";
import { acceptEvent } from "./service";

describe("untrusted events", () => {
  it("link a referral without qualifying it or paying; a trusted event then pays once", async () => {
    const scope = await testBusiness();
    await db.businessConfig.create({ data: { businessId: scope.businessId, eventProcessing: "SYNC", referralRewardWei: weiToDb(ethToWei("0.01")) } });
    await db.$transaction((tx) => creditLedger(tx, { businessId: scope.businessId, environment: "TEST", amountWei: ethToWei("1"), kind: "FUNDING" }));
    const alice = await upsertParticipant(scope, { userId: "alice" });
    const browser = { ...scope, untrusted: true };
    const body = { eventName: "purchase", referrer: alice.referralCode, metadata: { referredUserEmail: "bob@example.com" } };

    const fromBrowser = await acceptEvent(browser, body);
    expect(fromBrowser.body).toMatchObject({ status: "PROCESSED", reason: "UNTRUSTED_EVENT", referralId: expect.any(String) });
    expect("rewards" in fromBrowser.body).toBe(false);
    const referralId = (fromBrowser.body as { referralId: string }).referralId;
    expect(await db.referral.findUniqueOrThrow({ where: { id: referralId } })).toMatchObject({ status: "PENDING" });
    expect(await db.trackedEvent.findFirstOrThrow({ where: { id: (fromBrowser.body as { eventId: string }).eventId } })).toMatchObject({ untrusted: true });
    expect(await db.reward.count({ where: { businessId: scope.businessId } })).toBe(0);

    const fromServer = await acceptEvent(scope, body);
    expect(fromServer.body).toMatchObject({ status: "PROCESSED", reason: null, referralId });
    expect(await db.reward.count({ where: { businessId: scope.businessId, status: "PAID" } })).toBe(1);
    expect(await db.referral.findUniqueOrThrow({ where: { id: referralId } })).toMatchObject({ status: "REWARDED" });
  });

  it("are marked on the queued path too", async () => {
    const scope = await testBusiness();
    const r = await acceptEvent({ ...scope, untrusted: true }, { eventName: "signup", metadata: { referredUserEmail: "c@example.com" } });
    expect(r.status).toBe(202);
    expect(await db.trackedEvent.findFirstOrThrow({ where: { businessId: scope.businessId } })).toMatchObject({ untrusted: true });
  });
});
