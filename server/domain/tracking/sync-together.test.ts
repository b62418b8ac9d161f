// Concurrent synchronous events of one business are decided together (one transaction, one run
// of the rules core): each request gets the answer it would get alone, a refusal answers only
// its own request and leaves no event row, and money moves once per referral.
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { creditLedger, getBalanceWei, getLedgerSumWei } from "../ledger/service";
import { upsertParticipant } from "../participants/service";
import { testBusiness } from "../../../tests/support/jobs-fixtures";
import { ethToWei } from "../../shared/money";
import { acceptEvent } from "./service";

describe("synchronous events of concurrent requests", () => {
  it("are decided together with the answers of one-by-one processing", async () => {
    const scope = await testBusiness();
    await db.businessConfig.create({ data: { businessId: scope.businessId, eventProcessing: "SYNC", referralRewardWei: "1000", bonusWei: "500" } });
    await db.$transaction((tx) => creditLedger(tx, { businessId: scope.businessId, environment: "TEST", amountWei: ethToWei("1"), kind: "FUNDING" }));
    const alice = await upsertParticipant(scope, { userId: "alice" });

    // Eight requests at once: four new referred users, the same user twice more, a refusal, one naming nobody.
    const inputs = [
      ...[1, 2, 3, 4].map((i) => ({ eventName: "signup", referrer: alice.referralCode, metadata: { referredUserId: `u${i}` } })),
      { eventName: "purchase", metadata: { referredUserId: "u1" } },
      { eventName: "purchase", referrer: alice.referralCode, metadata: { referredUserId: "u2" } },
      { eventName: "signup", referrer: "NOPE1234", metadata: { referredUserId: "u9" } },
      { eventName: "visit" },
    ];
    const answers = await Promise.allSettled(inputs.map((input) => acceptEvent(scope, input)));

    const ok = answers.map((a) => (a.status === "fulfilled" ? a.value : null));
    for (const i of [0, 1, 2, 3]) expect(ok[i]).toMatchObject({ status: 200, body: { processedSynchronously: true, status: "PROCESSED", reason: null, referredParticipant: { participantId: expect.any(String) } } });
    expect(ok[0]!.body).toMatchObject({ rewards: [expect.objectContaining({ amountEth: "0.000000000000001" }), expect.objectContaining({ amountEth: "0.0000000000000005" })] });
    expect(ok[4]).toMatchObject({ status: 200, body: { status: "PROCESSED", reason: "REFERRAL_ALREADY_SETTLED" } });
    expect(ok[5]).toMatchObject({ status: 200, body: { status: "PROCESSED", reason: "REFERRAL_ALREADY_SETTLED" } });
    expect(answers[6]).toMatchObject({ status: "rejected", reason: { code: "UNKNOWN_REFERRAL_CODE" } });
    expect(ok[7]).toMatchObject({ status: 200, body: { status: "PROCESSED", referralId: null } });

    // Every answered event is stored as answered; the refused one is not stored at all.
    const events = await db.trackedEvent.findMany({ where: { businessId: scope.businessId } });
    expect(events).toHaveLength(7);
    for (const a of ok.filter((x) => x !== null)) {
      const e = events.find((x) => x.id === a.body.eventId)!;
      expect({ status: e.status, reason: e.reason }).toEqual({ status: (a.body as { status: string }).status, reason: (a.body as { reason: string | null }).reason });
    }
    // Decided together: the events before the refusal were written by one run (one processedAt).
    const byTime = new Map<number, number>();
    for (const e of events) byTime.set(e.processedAt!.getTime(), (byTime.get(e.processedAt!.getTime()) ?? 0) + 1);
    expect(Math.max(...byTime.values())).toBeGreaterThanOrEqual(6);
    // Four referrals, each paid once (referrer and bonus), and the pool agrees with the ledger.
    expect(await db.referral.count({ where: { businessId: scope.businessId } })).toBe(4);
    expect(await db.reward.count({ where: { businessId: scope.businessId, status: "PAID" } })).toBe(8);
    expect(await getBalanceWei(db, scope.businessId, "TEST")).toBe(ethToWei("1") - 4n * 1500n);
    expect(await getLedgerSumWei(db, scope.businessId, "TEST")).toBe(ethToWei("1") - 4n * 1500n);
  });

  it("a reversal event refused first in a group answers its own request, and the others are decided", async () => {
    const scope = await testBusiness();
    await db.businessConfig.create({ data: { businessId: scope.businessId, eventProcessing: "SYNC", referralRewardWei: "1000", reversalEvents: ["refund"] } });
    await db.$transaction((tx) => creditLedger(tx, { businessId: scope.businessId, environment: "TEST", amountWei: ethToWei("1"), kind: "FUNDING" }));
    const alice = await upsertParticipant(scope, { userId: "alice" });
    const inputs = [
      { eventName: "refund", referrer: "NOPE1234", metadata: { referredUserId: "u1" } },
      { eventName: "signup", referrer: alice.referralCode, metadata: { referredUserId: "u2" } },
      { eventName: "refund", referrer: "NOPE1234", metadata: { referredUserId: "u2" } },
      { eventName: "signup", referrer: alice.referralCode, metadata: { referredUserId: "u3" } },
    ];
    const answers = await Promise.allSettled(inputs.map((input) => acceptEvent(scope, input)));
    expect(answers[0]).toMatchObject({ status: "rejected", reason: { code: "UNKNOWN_REFERRAL_CODE" } });
    expect(answers[1]).toMatchObject({ status: "fulfilled", value: { status: 200, body: { status: "PROCESSED", reason: null } } });
    expect(answers[2]).toMatchObject({ status: "rejected", reason: { code: "UNKNOWN_REFERRAL_CODE" } });
    expect(answers[3]).toMatchObject({ status: "fulfilled", value: { status: 200, body: { status: "PROCESSED", reason: null } } });
    expect(await db.trackedEvent.count({ where: { businessId: scope.businessId } })).toBe(2);
    expect(await db.referral.count({ where: { businessId: scope.businessId } })).toBe(2);
  });
});
