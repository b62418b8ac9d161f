// The business's referral and participant lists: search, filters, paging, scoping, timeline.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { AppError } from "../../shared/errors";
import { getBusinessParticipant, getBusinessReferral, listBusinessParticipants, listBusinessReferrals } from "./browse";
import { listBusinessParticipantsInput, listBusinessReferralsInput } from "./browse-schemas";

const hex = () => randomBytes(5).toString("hex");

async function seed() {
  const b = await db.business.create({ data: { name: "Browse Co", ownerId: `owner-${hex()}` } });
  const key = await db.apiKey.create({ data: { businessId: b.id, environment: "TEST", name: "Web shop", keyHash: hex() + hex(), prefix: "rk_test_x" } });
  const mk = (email: string, name: string, environment: "TEST" | "LIVE" = "TEST", code = `C${hex()}`.toUpperCase()) =>
    db.participant.create({ data: { businessId: b.id, environment, referralCode: code, email, name } });
  const alice = await mk("alice@shop.example", "Alice Archer");
  // A code a search for "100%_" would match if % and _ were wildcards.
  const bob = await mk("bob@mail.example", "Bob Baker", "TEST", `C1003${hex()}`.toUpperCase());
  const carol = await mk("carol@mail.example", "Carol Cook");
  const dave = await mk("dave@mail.example", "Dave Live", "LIVE");
  const eve = await mk("eve@mail.example", "Eve Live", "LIVE");
  const t = (m: number) => new Date(Date.UTC(2025, 4, 1, 10, m));
  const r1 = await db.referral.create({ data: { businessId: b.id, environment: "TEST", referrerId: alice.id, referredId: bob.id, apiKeyId: key.id, source: "web", campaign: "spring", status: "REWARDED", createdAt: t(0), qualifiedAt: t(2) } });
  const r2 = await db.referral.create({ data: { businessId: b.id, environment: "TEST", referrerId: alice.id, referredId: carol.id, source: "app", status: "REJECTED", reason: "DISPOSABLE_EMAIL", createdAt: new Date(Date.UTC(2025, 4, 3)) } });
  await db.referral.create({ data: { businessId: b.id, environment: "LIVE", referrerId: dave.id, referredId: eve.id, createdAt: t(0) } });
  const ev = await db.trackedEvent.create({ data: { businessId: b.id, environment: "TEST", eventName: "purchase", referralId: r1.id, status: "PROCESSED", createdAt: t(1) } });
  await db.reward.create({ data: { businessId: b.id, environment: "TEST", participantId: alice.id, eventId: ev.id, referralId: r1.id, kind: "REFERRAL", requestedWei: "2000", amountWei: "1000", status: "PAID", reason: "DAILY_CAP", createdAt: t(1), paidAt: t(1) } });
  await db.reward.create({ data: { businessId: b.id, environment: "TEST", participantId: bob.id, eventId: ev.id, referralId: r1.id, kind: "BONUS", requestedWei: "500", amountWei: "0", status: "REFUSED", reason: "INSUFFICIENT_POOL", createdAt: t(1) } });
  return { businessId: b.id, key, alice, bob, carol, r1, r2 };
}

const q = (v: Record<string, unknown>) => listBusinessReferralsInput.parse(v);

describe("business referral list", () => {
  it("searches both sides, filters, and pages newest first within the environment", async () => {
    const s = await seed();
    const all = await listBusinessReferrals(s.businessId, q({ environment: "TEST" }));
    expect(all.data.map((r) => r.referralId)).toEqual([s.r2.id, s.r1.id]);
    const r1 = all.data[1];
    expect(r1).toMatchObject({ apiKeyId: s.key.id, apiKeyName: "Web shop", source: "web", ethPaid: "0.000000000000001", referrer: { email: "alice@shop.example", name: "Alice Archer" }, referred: { email: "bob@mail.example" } });

    expect((await listBusinessReferrals(s.businessId, q({ environment: "TEST", search: "BOB" }))).data.map((r) => r.referralId)).toEqual([s.r1.id]);
    expect((await listBusinessReferrals(s.businessId, q({ environment: "TEST", search: "archer" }))).data).toHaveLength(2);
    expect((await listBusinessReferrals(s.businessId, q({ environment: "TEST", search: s.carol.referralCode.toLowerCase() }))).data.map((r) => r.referralId)).toEqual([s.r2.id]);
    // % and _ are literal text, not wildcards; a backslash is searchable text too (not a broken pattern).
    expect((await listBusinessReferrals(s.businessId, q({ environment: "TEST", search: "100%_" }))).data).toEqual([]);
    expect((await listBusinessReferrals(s.businessId, q({ environment: "TEST", search: "_" }))).data).toEqual([]);
    expect((await listBusinessReferrals(s.businessId, q({ environment: "TEST", search: "\\" }))).data).toEqual([]);
    expect((await listBusinessReferrals(s.businessId, q({ environment: "TEST", search: "c1003" }))).data.map((r) => r.referralId)).toEqual([s.r1.id]);
    expect((await listBusinessReferrals(s.businessId, q({ environment: "TEST", status: "REJECTED" }))).data.map((r) => r.reason)).toEqual(["DISPOSABLE_EMAIL"]);
    expect((await listBusinessReferrals(s.businessId, q({ environment: "TEST", campaign: "spring" }))).data).toHaveLength(1);
    expect((await listBusinessReferrals(s.businessId, q({ environment: "TEST", apiKeyId: s.key.id }))).data).toHaveLength(1);
    expect((await listBusinessReferrals(s.businessId, q({ environment: "TEST", source: "app" }))).data).toHaveLength(1);
    expect((await listBusinessReferrals(s.businessId, q({ environment: "TEST", from: "2025-05-02" }))).data.map((r) => r.referralId)).toEqual([s.r2.id]);
    expect((await listBusinessReferrals(s.businessId, q({ environment: "TEST", to: "2025-05-02" }))).data.map((r) => r.referralId)).toEqual([s.r1.id]);
    expect((await listBusinessReferrals(s.businessId, q({ environment: "LIVE" }))).data).toHaveLength(1);

    const p1 = await listBusinessReferrals(s.businessId, q({ environment: "TEST", limit: "1" }));
    expect(p1.data.map((r) => r.referralId)).toEqual([s.r2.id]);
    const p2 = await listBusinessReferrals(s.businessId, q({ environment: "TEST", limit: 1, cursor: p1.nextCursor }));
    expect(p2).toMatchObject({ data: [{ referralId: s.r1.id }], nextCursor: null });
    await expect(listBusinessReferrals(s.businessId, q({ environment: "LIVE", cursor: s.r1.id }))).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
  });

  it("shows one referral with its events, rewards and reasons on one timeline; another business gets 404", async () => {
    const s = await seed();
    const d = await getBusinessReferral(s.businessId, s.r1.id);
    expect(d.timeline.map((e) => [e.type, e.status, e.reason])).toEqual([
      ["REFERRAL_CREATED", null, null],
      ["EVENT", "PROCESSED", null],
      ["REWARD", "PAYABLE", "DAILY_CAP"],
      ["REWARD", "REFUSED", "INSUFFICIENT_POOL"],
      ["QUALIFIED", "QUALIFIED", null],
    ]);
    expect(d.timeline[0].title).toBe("Alice Archer referred Bob Baker (source: web) through key Web shop");
    expect(d.timeline[2]).toMatchObject({ kind: "REFERRAL", amountEth: "0.000000000000001", requestedEth: "0.000000000000002", recipient: { name: "Alice Archer" } });
    expect(d.rewards.map((r) => r.recipient.participantId)).toEqual([s.alice.id, s.bob.id]);
    const rej = await getBusinessReferral(s.businessId, s.r2.id);
    expect(rej.timeline.at(-1)).toMatchObject({ type: "STATUS", status: "REJECTED", reason: "DISPOSABLE_EMAIL" });

    const other = await seed();
    await expect(getBusinessReferral(other.businessId, s.r1.id)).rejects.toBeInstanceOf(AppError);
    await expect(getBusinessReferral(other.businessId, s.r1.id)).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});

describe("business participant list", () => {
  it("searches, counts referrals, names who referred whom and sums what was earned", async () => {
    const s = await seed();
    const list = await listBusinessParticipants(s.businessId, listBusinessParticipantsInput.parse({ environment: "TEST" }));
    expect(list.data).toHaveLength(3);
    const alice = list.data.find((p) => p.participantId === s.alice.id)!;
    expect(alice).toMatchObject({ referralsMade: 2, referredBy: null, earnedEth: "0.000000000000001", owedEth: "0.000000000000001", paidOutEth: "0", walletAddress: null });
    const bob = list.data.find((p) => p.participantId === s.bob.id)!;
    expect(bob).toMatchObject({ referralsMade: 0, referredBy: { participantId: s.alice.id }, earnedEth: "0", owedEth: "0", paidOutEth: "0" });
    expect((await listBusinessParticipants(s.businessId, listBusinessParticipantsInput.parse({ environment: "TEST", search: "shop.example" }))).data.map((p) => p.participantId)).toEqual([s.alice.id]);
    expect((await listBusinessParticipants(s.businessId, listBusinessParticipantsInput.parse({ environment: "LIVE" }))).data).toHaveLength(2);

    const d = await getBusinessParticipant(s.businessId, s.alice.id);
    expect(d.referrals.map((r) => r.referralId)).toEqual([s.r2.id, s.r1.id]);
    expect(d.rewards).toHaveLength(1);
    const other = await seed();
    await expect(getBusinessParticipant(other.businessId, s.alice.id)).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});
