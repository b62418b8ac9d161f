// Keys the database holds for the hot path's tables (migrations 0061_sparse_indexes and
// 0062_tenant_keys): a reward and a referral name participants of their own business and
// environment (one composite key instead of a participant key and a business key), deleting a
// business still deletes what hangs off it, and the indexes that left out NULLs and other
// statuses still enforce their unique rules.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { db, rawRows } from "./client";

const hex = () => randomBytes(5).toString("hex");

async function tenant() {
  const b = await db.business.create({ data: { name: "Keys Co", ownerId: `owner-${hex()}` } });
  const person = (environment: "TEST" | "LIVE" = "TEST", extra: Record<string, unknown> = {}) =>
    db.participant.create({ data: { businessId: b.id, environment, referralCode: `K${hex()}`, email: `${hex()}@example.com`, ...extra } });
  return { businessId: b.id, person };
}

const reward = (businessId: string, environment: "TEST" | "LIVE", participantId: string) =>
  db.reward.create({ data: { businessId, environment, participantId, kind: "MANUAL", requestedWei: "1", amountWei: "1", status: "PAID", paidAt: new Date() } });

const referral = (businessId: string, environment: "TEST" | "LIVE", referrerId: string, referredId: string) =>
  db.referral.create({ data: { businessId, environment, referrerId, referredId } });

describe("tenant keys", () => {
  it("refuses a reward naming a participant of another business or environment", async () => {
    const a = await tenant();
    const b = await tenant();
    const pa = await a.person();
    const pb = await b.person();
    await expect(reward(a.businessId, "TEST", pb.id)).rejects.toThrow();
    await expect(reward(a.businessId, "LIVE", pa.id)).rejects.toThrow();
    await expect(reward(a.businessId, "TEST", `missing-${hex()}`)).rejects.toThrow();
    await expect(reward(`missing-${hex()}`, "TEST", pa.id)).rejects.toThrow();
    expect(await db.reward.count({ where: { businessId: a.businessId } })).toBe(0);
    // A reward of the participant's own business and environment is the one that goes in.
    await expect(reward(a.businessId, "TEST", pa.id)).resolves.toMatchObject({ participantId: pa.id });
  });

  it("refuses a referral whose referrer or referred user belongs to another business or environment", async () => {
    const a = await tenant();
    const b = await tenant();
    const [referrer, referred, live] = [await a.person(), await a.person(), await a.person("LIVE")];
    const stranger = await b.person();
    await expect(referral(a.businessId, "TEST", stranger.id, referred.id)).rejects.toThrow();
    await expect(referral(a.businessId, "TEST", referrer.id, stranger.id)).rejects.toThrow();
    await expect(referral(a.businessId, "TEST", referrer.id, live.id)).rejects.toThrow();
    await expect(referral(b.businessId, "TEST", referrer.id, referred.id)).rejects.toThrow();
    expect(await db.referral.count({ where: { OR: [{ businessId: a.businessId }, { businessId: b.businessId }] } })).toBe(0);
    await expect(referral(a.businessId, "TEST", referrer.id, referred.id)).resolves.toMatchObject({ referrerId: referrer.id });
  });

  it("deletes a business's participants, referrals and rewards with it", async () => {
    const a = await tenant();
    const other = await tenant();
    const [referrer, referred] = [await a.person(), await a.person()];
    const r = await referral(a.businessId, "TEST", referrer.id, referred.id);
    await reward(a.businessId, "TEST", referrer.id);
    const kept = await other.person();
    await reward(other.businessId, "TEST", kept.id);
    await db.business.delete({ where: { id: a.businessId } });
    expect(await db.referral.findUnique({ where: { id: r.id } })).toBeNull();
    expect(await db.reward.count({ where: { businessId: a.businessId } })).toBe(0);
    expect(await db.participant.count({ where: { businessId: a.businessId } })).toBe(0);
    expect(await db.reward.count({ where: { businessId: other.businessId } })).toBe(1);
  });

  it("deleting a participant deletes their rewards and the referrals they are part of", async () => {
    const a = await tenant();
    const [referrer, referred] = [await a.person(), await a.person()];
    await referral(a.businessId, "TEST", referrer.id, referred.id);
    await reward(a.businessId, "TEST", referred.id);
    await db.participant.delete({ where: { id: referred.id } });
    expect(await db.referral.count({ where: { referrerId: referrer.id } })).toBe(0);
    expect(await db.reward.count({ where: { participantId: referred.id } })).toBe(0);
  });
});

describe("sparse indexes", () => {
  it("a handle, an email, an external id is still taken once per business and environment, while any number of participants have none", async () => {
    const a = await tenant();
    for (const field of ["handle", "email", "externalId"] as const) {
      await a.person("TEST", { [field]: `ann-${field}` });
      await expect(a.person("TEST", { [field]: `ann-${field}` })).rejects.toThrow();
      await a.person("LIVE", { [field]: `ann-${field}` });
      await a.person("TEST", { [field]: null });
      await a.person("TEST", { [field]: null });
    }
    expect(await db.participant.count({ where: { businessId: a.businessId, handle: null } })).toBe(10);
    expect(await db.participant.count({ where: { businessId: a.businessId, email: null } })).toBe(2);
    expect(await db.participant.count({ where: { businessId: a.businessId, externalId: null } })).toBe(10);
  });

  it("a transaction hash is still credited once per environment, while any number of entries have none", async () => {
    const a = await tenant();
    const entry = (txHash: string | null, environment: "TEST" | "LIVE" = "TEST") =>
      db.ledgerEntry.create({ data: { businessId: a.businessId, environment, kind: "FUNDING", amountWei: "5", txHash } });
    const hash = `0x${hex()}`;
    await entry(hash);
    await expect(entry(hash)).rejects.toThrow();
    await entry(hash, "LIVE");
    await entry(null);
    await entry(null);
    expect(await db.ledgerEntry.count({ where: { businessId: a.businessId } })).toBe(4);
  });

  it("each index holds only the rows its queries ask for", async () => {
    const rows = await rawRows<{ name: string; def: string }>(
      `SELECT indexname AS name, indexdef AS def FROM pg_indexes
        WHERE indexname IN ('Reward_payoutId_idx', 'LedgerEntry_environment_txHash_key', 'TrackedEvent_businessId_environment_campaign_createdAt_idx',
                            'TrackedEvent_referralId_idx', 'Participant_businessId_environment_handle_key', 'Participant_businessId_environment_email_key',
                            'Participant_businessId_environment_externalId_key', 'Job_type_status_runAt_idx', 'Job_finishedAt_idx')
        ORDER BY indexname`,
    );
    const where = Object.fromEntries(rows.map((r) => [r.name, r.def.replace(/^.* WHERE /, "").replace(/::text|::"JobStatus"|[()"]/g, "")]));
    expect(where).toEqual({
      Job_finishedAt_idx: "status = ANY ARRAY['SUCCEEDED', 'FAILED']",
      Job_type_status_runAt_idx: "status = ANY ARRAY['QUEUED', 'RUNNING']",
      LedgerEntry_environment_txHash_key: "txHash IS NOT NULL",
      Participant_businessId_environment_email_key: "email IS NOT NULL",
      Participant_businessId_environment_externalId_key: "externalId IS NOT NULL",
      Participant_businessId_environment_handle_key: "handle IS NOT NULL",
      Reward_payoutId_idx: "payoutId IS NOT NULL",
      TrackedEvent_businessId_environment_campaign_createdAt_idx: "campaign IS NOT NULL",
      TrackedEvent_referralId_idx: "referralId IS NOT NULL",
    });
  });
});
