// Erasure keeps the books whole: personal data goes, ids, amounts, the ledger chain and totals
// stay; a later event naming the erased email does not bring it back; the erasure is audited and
// announced by a participant.erased webhook. The export holds everything about the person.
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { domainBusiness, participant, trackReferral, uniqueEmail } from "../../../tests/support/domain";
import { staff } from "../../../tests/support/staff";
import { participantTotals } from "../payouts/totals";
import { verifyStoredLedger } from "../ledger/verify";
import { acceptEvent } from "../tracking/service";

/** Every row of every table that holds the business's data, as text, where `needle` (any case) appears. */
async function copiesOf(businessId: string, needle: string): Promise<string[]> {
  const tables = await db.$queryRawUnsafe<Array<{ table: string }>>(
    `SELECT table_name::text AS "table" FROM information_schema.columns WHERE table_schema = current_schema() AND column_name = 'businessId' ORDER BY 1`,
  );
  const found: string[] = [];
  for (const { table } of tables) {
    const rows = await db.$queryRawUnsafe<Array<{ row: string }>>(
      `SELECT row_to_json(t)::text AS "row" FROM "${table}" t WHERE t."businessId" = $1 AND strpos(lower(row_to_json(t)::text), lower($2)) > 0`,
      businessId,
      needle,
    );
    found.push(...rows.map((r) => `${table}: ${r.row}`));
  }
  return found;
}

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

  it("erases every stored copy: events of any referral or none, metadata at any depth, inside longer text, in every table", async () => {
    const { businessId, scope } = await domainBusiness({ fundEth: "1", referralRewardEth: "0.01" });
    const owner = await staff(businessId, "OWNER");
    await db.webhookEndpoint.create({ data: { businessId, environment: "TEST", url: "https://hooks.example.com/x", secretCiphertext: "x", secretPrefix: "whsec_x" } });
    const ann = await participant(scope, { name: "Ann Referrer", userId: "ext-ann-1" });
    const bobEmail = uniqueEmail("bob");
    const bob = await participant(scope, { email: bobEmail, name: "Bobby Tables", userId: "ext-bob-77" });
    expect((await trackReferral(scope, ann.referralCode, { referredUserEmail: bobEmail })).status).toBeLessThan(300);
    // Another person's referral whose event mentions Bob, in a longer text and in upper case.
    const carlEmail = uniqueEmail("carl");
    await acceptEvent(scope, { eventName: "purchase", referrer: ann.referralCode, metadata: { referredUserEmail: carlEmail, note: `gift for ${bobEmail.toUpperCase()}, thanks!` } });
    // An event of no referral at all, the email deep inside, the name and user id beside it.
    await acceptEvent(scope, {
      eventName: "newsletter",
      metadata: { contact: { list: [{ to: `Bobby Tables <${bobEmail}>` }], user: "ext-bob-77" }, amount: 77, orderId: "ext-bob-778" },
    });
    await owner.caller.rewards.create({ recipient: bobEmail, amountEth: "0.001", reason: "goodwill", environment: "TEST" });
    expect(await copiesOf(businessId, bobEmail)).not.toEqual([]);

    const totalsBefore = await participantTotals(businessId, [ann.participantId, bob.participantId]);
    await owner.caller.participants.erase({ participantId: bob.participantId });

    // The user id as a whole value (a longer id such as "ext-bob-778" is someone else's).
    for (const value of [bobEmail, "Bobby Tables", '"ext-bob-77"']) expect(await copiesOf(businessId, value)).toEqual([]);
    // What is not the person stays: numbers keep their type, a longer id is another value, Carl is untouched.
    const newsletter = await db.trackedEvent.findFirstOrThrow({ where: { businessId, eventName: "newsletter" } });
    expect(newsletter.metadata).toEqual({ contact: { list: [{ to: "[erased] <[erased]>" }], user: "[erased]" }, amount: 77, orderId: "ext-bob-778" });
    expect(await copiesOf(businessId, carlEmail)).not.toEqual([]);
    const gift = await db.trackedEvent.findFirstOrThrow({ where: { businessId, metadata: { path: ["referredUserEmail"], equals: carlEmail } } });
    expect(gift.metadata).toMatchObject({ note: "gift for [erased], thanks!" });
    expect(await participantTotals(businessId, [ann.participantId, bob.participantId])).toEqual(totalsBefore);
    expect(await verifyStoredLedger(businessId, "TEST")).toMatchObject({ ok: true });
    expect(await owner.caller.auditLog.verify()).toMatchObject({ ok: true });
  }, 120_000);

  it("answers 404 for another business's participant", async () => {
    const a = await domainBusiness();
    const b = await domainBusiness();
    const stranger = await participant(b.scope);
    const owner = await staff(a.businessId, "OWNER");
    await expect(owner.caller.participants.erase({ participantId: stranger.participantId })).rejects.toThrow(/not found/i);
    await expect(owner.caller.participants.export({ participantId: stranger.participantId })).rejects.toThrow(/not found/i);
  });
});
