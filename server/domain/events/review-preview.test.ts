// Review of FLAGGED events: the preview is the engine's own decision, rolled back (it matches
// what approval then does, caps and pool included, and writes nothing); the event names its
// referrer and referred user even when attributed through referredUserId (no code sent).
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { ethToWei, weiToDb } from "../../shared/money";
import { creditLedger, getBalanceWei } from "../ledger/service";
import { changeEventStatus, getEvent, listEvents, previewEventDecision } from "./service";

const hex = () => randomBytes(5).toString("hex");
const ENV = "TEST" as const;

async function flaggedEvent(opts: { dailyCapEth?: string; fundEth: string }) {
  const b = await db.business.create({ data: { name: "Review Co", ownerId: `owner-${hex()}` } });
  await db.businessConfig.create({
    data: {
      businessId: b.id,
      referralRewardWei: weiToDb(ethToWei("0.01")),
      bonusWei: weiToDb(ethToWei("0.005")),
      maxEthPerDayPerUserWei: opts.dailyCapEth ? weiToDb(ethToWei(opts.dailyCapEth)) : null,
    },
  });
  if (opts.fundEth !== "0") await db.$transaction((tx) => creditLedger(tx, { businessId: b.id, environment: ENV, amountWei: ethToWei(opts.fundEth), kind: "FUNDING" }));
  const mk = (name: string) => db.participant.create({ data: { businessId: b.id, environment: ENV, referralCode: `C${hex()}`.toUpperCase(), email: `${hex()}@example.com`, name, externalId: `u-${hex()}` } });
  const alice = await mk("Alice");
  const bob = await mk("Bob");
  const referral = await db.referral.create({ data: { businessId: b.id, environment: ENV, referrerId: alice.id, referredId: bob.id, status: "QUALIFIED", qualifiedAt: new Date() } });
  // Attributed through referredUserId: `referrer` (the code as sent) is null.
  const event = await db.trackedEvent.create({ data: { businessId: b.id, environment: ENV, eventName: "purchase", referrer: null, referralId: referral.id, status: "FLAGGED", reason: "HELD_FOR_REVIEW" } });
  for (const [p, kind, wei] of [[alice, "REFERRAL", "0.01"], [bob, "BONUS", "0.005"]] as const) {
    await db.reward.create({ data: { businessId: b.id, environment: ENV, participantId: p.id, eventId: event.id, referralId: referral.id, kind, requestedWei: weiToDb(ethToWei(wei)), amountWei: "0", status: "HELD", reason: "HELD_FOR_REVIEW" } });
  }
  return { businessId: b.id, alice, bob, event };
}

describe("review of flagged events", () => {
  it("names the referrer and the referred user of an event attributed without a code", async () => {
    const s = await flaggedEvent({ fundEth: "1" });
    const e = await getEvent(s.businessId, s.event.id);
    expect(e.referrer).toBeNull();
    expect(e.referrerParticipant).toMatchObject({ participantId: s.alice.id, name: "Alice" });
    expect(e.referredParticipant).toMatchObject({ participantId: s.bob.id, name: "Bob" });
    const list = await listEvents(s.businessId, { environment: ENV, limit: 10 });
    expect(list.data[0].referrerParticipant?.participantId).toBe(s.alice.id);
  });

  it("previews each reward as approval then pays it, caps and pool included, and writes nothing", async () => {
    // Alice already received 0.004 today: the daily cap 0.006 leaves her 0.002 of 0.01.
    const s = await flaggedEvent({ fundEth: "1", dailyCapEth: "0.006" });
    await db.reward.create({ data: { businessId: s.businessId, environment: ENV, participantId: s.alice.id, kind: "MANUAL", requestedWei: weiToDb(ethToWei("0.004")), amountWei: weiToDb(ethToWei("0.004")), status: "PAID", paidAt: new Date() } });
    const balanceBefore = await getBalanceWei(db, s.businessId, ENV);
    const preview = await previewEventDecision(s.businessId, { eventId: s.event.id, status: "PROCESSED" });
    expect(preview.rewards.map((r) => [r.kind, r.recipient.name, r.amountEth, r.status, r.reason])).toEqual([
      ["REFERRAL", "Alice", "0.002", "PAID", "DAILY_CAP"],
      ["BONUS", "Bob", "0.005", "PAID", null],
    ]);
    // Nothing written: still FLAGGED, rewards still HELD, balance unchanged, no alert.
    expect((await db.trackedEvent.findUniqueOrThrow({ where: { id: s.event.id } })).status).toBe("FLAGGED");
    expect(await db.reward.count({ where: { eventId: s.event.id, status: "HELD" } })).toBe(2);
    expect(await getBalanceWei(db, s.businessId, ENV)).toBe(balanceBefore);

    const done = await changeEventStatus(s.businessId, { eventId: s.event.id, status: "PROCESSED" });
    expect(done.outcome.map((r) => [r.kind, r.recipient.participantId, r.amountEth, r.status, r.reason])).toEqual([
      ["REFERRAL", s.alice.id, "0.002", "PAID", "DAILY_CAP"],
      ["BONUS", s.bob.id, "0.005", "PAID", null],
    ]);
    expect(preview.rewards.map((r) => [r.rewardId, r.amountEth, r.status])).toEqual(done.outcome.map((r) => [r.rewardId, r.amountEth, r.status]));
    // Decided: a second preview is an invalid transition, like the decision itself.
    await expect(previewEventDecision(s.businessId, { eventId: s.event.id, status: "PROCESSED" })).rejects.toMatchObject({ code: "INVALID_TRANSITION" });
  });

  it("an empty pool: the preview says refused for lack of funds, and so does the result", async () => {
    const s = await flaggedEvent({ fundEth: "0" });
    const preview = await previewEventDecision(s.businessId, { eventId: s.event.id, status: "PROCESSED" });
    expect(preview.rewards.map((r) => [r.status, r.reason])).toEqual([
      ["REFUSED", "INSUFFICIENT_POOL"],
      ["REFUSED", "INSUFFICIENT_POOL"],
    ]);
    const done = await changeEventStatus(s.businessId, { eventId: s.event.id, status: "PROCESSED" });
    expect(done.outcome.map((r) => r.status)).toEqual(["REFUSED", "REFUSED"]);
  });

  it("another business's event is a 404 for the preview", async () => {
    const s = await flaggedEvent({ fundEth: "1" });
    const other = await flaggedEvent({ fundEth: "1" });
    await expect(previewEventDecision(other.businessId, { eventId: s.event.id, status: "PROCESSED" })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});
