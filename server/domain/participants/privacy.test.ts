// Erasure keeps the books whole: personal data goes, ids, amounts, the ledger chain and totals
// stay; a later event naming the erased email does not bring it back; the erasure is audited and
// announced by a participant.erased webhook. The export holds everything about the person.
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { domainBusiness, participant, trackReferral, uniqueEmail } from "../../../tests/support/domain";
import { staff } from "../../../tests/support/staff";
import { participantTotals } from "../payouts/totals";
import { verifyStoredLedger } from "../ledger/verify";

describe("participant privacy", () => {
  it("exports a participant, then erases them: totals, ledger and ids unchanged, the email never returns", async () => {
    const { businessId, scope } = await domainBusiness({ fundEth: "1", referralRewardEth: "0.01" });
    const owner = await staff(businessId, "OWNER");
    await db.webhookEndpoint.create({ data: { businessId, environment: "TEST", url: "https://hooks.example.com/x", secretCiphertext: "x", secretPrefix: "whsec_x" } });
    const referrer = await participant(scope, { name: "Ann Referrer", userId: "ext-ann-1" });
    const referredEmail = uniqueEmail("bob");
    expect((await trackReferral(scope, referrer.referralCode, { referredUserEmail: referredEmail })).status).toBeLessThan(300);
    const bob = await db.participant.findFirstOrThrow({ where: { businessId, email: referredEmail } });

    const exported = await owner.caller.participants.export({ participantId: referrer.participantId });
    expect(JSON.stringify(exported)).toContain(referrer.email!);
    expect((exported.rewards as unknown[]).length).toBeGreaterThan(0);

    const totalsBefore = await participantTotals(businessId, [referrer.participantId, bob.id]);
    const ledgerBefore = await verifyStoredLedger(businessId, "TEST");
    const erased = await owner.caller.participants.erase({ participantId: bob.id });
    await owner.caller.participants.erase({ participantId: referrer.participantId });
    expect(erased).toMatchObject({ participantId: bob.id, environment: "TEST" });

    const after = await db.participant.findUniqueOrThrow({ where: { id: referrer.participantId } });
    expect(after).toMatchObject({ email: null, name: null, externalId: null, handle: null, referralCode: referrer.referralCode });
    expect(await participantTotals(businessId, [referrer.participantId, bob.id])).toEqual(totalsBefore);
    expect(await verifyStoredLedger(businessId, "TEST")).toEqual(ledgerBefore);
    const again = JSON.stringify(await owner.caller.participants.export({ participantId: referrer.participantId }));
    expect(again).not.toContain(referrer.email!);
    expect(again).not.toContain("Ann Referrer");
    const bobExport = JSON.stringify(await owner.caller.participants.export({ participantId: bob.id }));
    expect(bobExport).not.toContain(referredEmail);

    // A later event naming the erased email, and a wallet change: the data does not come back.
    await trackReferral(scope, referrer.referralCode, { referredUserEmail: referredEmail });
    expect(await db.participant.count({ where: { businessId, email: referredEmail } })).toBe(0);
    await db.participant.update({ where: { id: bob.id }, data: { email: referredEmail } });
    expect((await db.participant.findUniqueOrThrow({ where: { id: bob.id } })).email).toBeNull();

    const audit = await owner.caller.auditLog.list({ action: "participants.erase" });
    expect(audit.data).toHaveLength(2);
    expect(JSON.stringify(audit)).not.toContain(referredEmail);
    expect(JSON.stringify(audit)).not.toContain(referrer.email!);
    const hooks = await db.webhookMessage.findMany({ where: { businessId, eventType: "participant.erased" } });
    expect(hooks).toHaveLength(2);
    const bodies = await db.webhookMessage.findMany({ where: { businessId }, select: { body: true } });
    expect(JSON.stringify(bodies)).not.toContain(referredEmail);
  }, 120_000);

  it("erasing one person leaves another's messages alone when they share a name or a user id; finished referral applies lose the person's input", async () => {
    const { businessId, scope } = await domainBusiness();
    const owner = await staff(businessId, "OWNER");
    const endpoint = await db.webhookEndpoint.create({ data: { businessId, environment: "TEST", url: "https://hooks.example.com/x", secretCiphertext: "x", secretPrefix: "whsec_x" } });
    const erased = await participant(scope, { name: "Pat Common", userId: "1" });
    const kept = await participant(scope, { name: "Pat Common", userId: "2" });
    const message = (id: string, who: { participantId: string; email: string | null }, userId: string) =>
      db.webhookMessage.create({
        data: { id, endpointId: endpoint.id, businessId, environment: "TEST", eventType: "participant.updated", body: JSON.stringify({ type: "participant.updated", data: { participantId: who.participantId, name: "Pat Common", userId, email: who.email, environment: "TEST", note: "1" } }) },
      });
    const suffix = Math.random().toString(36).slice(2);
    await message(`msg-erased-${suffix}`, erased, "1");
    await message(`msg-kept-${suffix}`, kept, "2");
    const job = await db.job.create({
      data: { businessId, environment: "TEST", type: "SDK_REFERRAL_APPLY", status: "SUCCEEDED", payload: { referralCode: "X", referredUserEmail: erased.email, referredUserName: "Pat Common", referredUserId: "1" }, finishedAt: new Date() },
    });

    await owner.caller.participants.erase({ participantId: erased.participantId });
    const after = await db.webhookMessage.findUniqueOrThrow({ where: { id: `msg-erased-${suffix}` } });
    expect(after.body).not.toContain("Pat Common");
    expect(after.body).not.toContain(erased.email!);
    const other = JSON.parse((await db.webhookMessage.findUniqueOrThrow({ where: { id: `msg-kept-${suffix}` } })).body) as { data: Record<string, unknown> };
    expect(other.data).toMatchObject({ name: "Pat Common", userId: "2", email: kept.email, environment: "TEST", note: "1" });
    const payload = JSON.stringify((await db.job.findUniqueOrThrow({ where: { id: job.id } })).payload);
    expect(payload).not.toContain(erased.email!);
    expect(payload).not.toContain("Pat Common");
  });

  it("answers 404 for another business's participant", async () => {
    const a = await domainBusiness();
    const b = await domainBusiness();
    const stranger = await participant(b.scope);
    const owner = await staff(a.businessId, "OWNER");
    await expect(owner.caller.participants.erase({ participantId: stranger.participantId })).rejects.toThrow(/not found/i);
    await expect(owner.caller.participants.export({ participantId: stranger.participantId })).rejects.toThrow(/not found/i);
  });
});
