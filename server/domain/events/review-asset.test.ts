// The review of a FLAGGED event in a program that pays in a token (issue 47): the preview, the
// approval's outcome and the event itself state the rewards' amounts in the token's decimals and
// say which asset (`asset`), and the pool's ledger memo names the token, never ETH.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { creditLedger } from "../ledger/service";
import { changeEventStatus, getEvent, previewEventDecision } from "./service";

const hex = () => randomBytes(5).toString("hex");
const ENV = "TEST" as const;
const TOKEN = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const usdc = { symbol: "USDC", decimals: 6, tokenAddress: TOKEN };

/** A USDC program (base units: millionths) funded with 1 USDC and an event held for review that asks 0.25 and 0.05 USDC. */
async function flaggedUsdcEvent() {
  const b = await db.business.create({ data: { name: "Dollar Co", ownerId: `owner-${hex()}` } });
  await db.businessConfig.create({ data: { businessId: b.id, referralRewardWei: "250000", bonusWei: "50000" } });
  await db.environmentAsset.create({ data: { businessId: b.id, environment: ENV, asset: "ERC20", ...usdc } });
  await db.$transaction((tx) => creditLedger(tx, { businessId: b.id, environment: ENV, amountWei: 1_000_000n, kind: "FUNDING" }));
  const mk = (name: string) => db.participant.create({ data: { businessId: b.id, environment: ENV, referralCode: `C${hex()}`.toUpperCase(), email: `${hex()}@example.com`, name } });
  const alice = await mk("Alice");
  const bob = await mk("Bob");
  const referral = await db.referral.create({ data: { businessId: b.id, environment: ENV, referrerId: alice.id, referredId: bob.id, status: "QUALIFIED", qualifiedAt: new Date() } });
  const event = await db.trackedEvent.create({ data: { businessId: b.id, environment: ENV, eventName: "purchase", referrer: alice.referralCode, referralId: referral.id, status: "FLAGGED", reason: "HELD_FOR_REVIEW" } });
  for (const [p, kind, units] of [[alice, "REFERRAL", "250000"], [bob, "BONUS", "50000"]] as const) {
    await db.reward.create({ data: { businessId: b.id, environment: ENV, participantId: p.id, eventId: event.id, referralId: referral.id, kind, requestedWei: units, amountWei: "0", status: "HELD", reason: "HELD_FOR_REVIEW" } });
  }
  return { businessId: b.id, event };
}

describe("review of a flagged event in a USDC program", () => {
  it("previews, approves and lists the rewards in USDC with the asset; the ledger memo names USDC", async () => {
    const s = await flaggedUsdcEvent();
    const expected = [
      { kind: "REFERRAL", amountEth: "0.25", requestedEth: "0.25", status: "PAID", asset: usdc },
      { kind: "BONUS", amountEth: "0.05", requestedEth: "0.05", status: "PAID", asset: usdc },
    ];
    const preview = await previewEventDecision(s.businessId, { eventId: s.event.id, status: "PROCESSED" });
    expect(preview.rewards).toMatchObject(expected);
    const done = await changeEventStatus(s.businessId, { eventId: s.event.id, status: "PROCESSED" });
    expect(done.outcome).toMatchObject(expected);
    expect(done.rewards).toMatchObject(expected.map(({ kind, amountEth, asset }) => ({ kind, amountEth, asset })));
    expect((await getEvent(s.businessId, s.event.id)).rewards.map((r) => r.amountEth)).toEqual(["0.25", "0.05"]);
    const memos = (await db.ledgerEntry.findMany({ where: { businessId: s.businessId, kind: "REWARD" }, orderBy: { seq: "asc" } })).map((e) => e.memo);
    expect(memos).toEqual(["REFERRAL reward 0.25 USDC", "BONUS reward 0.05 USDC"]);
  });
});
