// The staff audit log (migration 0080, server/trpc/audit.ts): every business mutation is recorded
// with actor, action, target, before/after and an IP hash, in the transaction of the change; a
// failed or refused mutation records nothing; the log is chained and append-only; no secret or
// participant's personal data is written to it.
import { describe, expect, it } from "vitest";
import { db } from "../db/client";
import { audited } from "./audit";
import { domainBusiness } from "../../tests/support/domain";
import { staff } from "../../tests/support/staff";

describe("staff audit log", () => {
  it("records a settings change with before, after, actor and IP hash, and a created object with its id but no secret", async () => {
    const { businessId } = await domainBusiness();
    const owner = await staff(businessId, "OWNER");
    await owner.caller.config.updateSpend({ environment: "TEST", lowPoolAlertEth: "0.5" });
    const key = await owner.caller.apiKeys.create({ environment: "TEST", name: "server" });
    await owner.caller.tiers.create({ name: "Gold", minReferrals: 5, referralRewardEth: "0.02", bonusEth: "0" });

    const { data } = await owner.caller.auditLog.list({});
    expect(data.map((a) => a.action)).toEqual(["tiers.create", "apiKeys.create", "config.updateSpend"]);
    const spend = data[2];
    expect(spend).toMatchObject({ environment: "TEST", actor: { userId: owner.user.id, email: owner.user.email }, seq: "1" });
    expect(spend.ipHash).toMatch(/^[0-9a-f]{32}$/);
    // In the API's words: the spend settings of TEST as GET /business/config shows them.
    expect(spend.changes).toEqual([{ field: "lowPoolAlertEth", before: "0", after: "0.5" }]);
    expect(spend.after).toMatchObject({ lowPoolAlertEth: "0.5", referralRewardEth: "0.01" });
    const created = data[1];
    // Created in a transaction under the business lock: the entry names the new object.
    expect(created.target).toBe(`apiKeyId:${key.apiKeyId}`);
    expect(data[0].target).toMatch(/^tierId:/);
    expect(key.secret.length).toBeGreaterThan(20);
    expect(JSON.stringify(created)).not.toContain(key.secret);
    expect(await owner.caller.auditLog.verify()).toMatchObject({ ok: true, entries: 3 });
  });

  it("speaks the API's words (ETH, the routes' field names) and lists business-wide changes under either environment", async () => {
    const { businessId } = await domainBusiness({ referralRewardEth: "0.01" });
    const owner = await staff(businessId, "OWNER");
    await owner.caller.config.updateGeneral({ referralRewardEth: "0.02" });
    await owner.caller.config.updateSpend({ environment: "TEST", maxEthPerDayPerUser: "1.5" });
    const tier = await owner.caller.tiers.create({ name: "Gold", minReferrals: 5, referralRewardEth: "0.02", bonusEth: "0" });
    await owner.caller.tiers.update({ tierId: tier.tierId, referralRewardEth: "0.03" });
    await owner.caller.referrals.updateSettings({ maxReferralsPerReferrerPerDay: 7 });

    const { data } = await owner.caller.auditLog.list({});
    const entry = (action: string) => data.find((a) => a.action === action)!;
    expect(entry("config.updateGeneral")).toMatchObject({ environment: null, changes: [{ field: "referralRewardEth", before: "0.01", after: "0.02" }] });
    expect(entry("config.updateSpend").changes).toEqual([{ field: "maxEthPerDayPerUser", before: null, after: "1.5" }]);
    expect(entry("tiers.update").changes).toEqual([{ field: "referralRewardEth", before: "0.02", after: "0.03" }]);
    expect(entry("referrals.updateSettings").changes).toEqual([{ field: "maxReferralsPerReferrerPerDay", before: null, after: 7 }]);
    // No stored row and no wei anywhere in what the log shows.
    expect(JSON.stringify(data)).not.toMatch(/Wei|environmentConfig|businessConfig/);

    const actions = async (environment: "TEST" | "LIVE") => (await owner.caller.auditLog.list({ environment })).data.map((a) => a.action);
    expect(await actions("TEST")).toEqual(["referrals.updateSettings", "tiers.update", "tiers.create", "config.updateSpend", "config.updateGeneral"]);
    expect(await actions("LIVE")).toEqual(["referrals.updateSettings", "tiers.update", "tiers.create", "config.updateGeneral"]);
  });

  it("keeps its head outside its rows: deleting the newest entries is noticed by verify", async () => {
    const { businessId } = await domainBusiness();
    const owner = await staff(businessId, "OWNER");
    for (const bonusEth of ["0.001", "0.002", "0.003"]) await owner.caller.config.updateGeneral({ environment: "TEST", bonusEth });
    expect(await owner.caller.auditLog.verify()).toMatchObject({ ok: true, entries: 3 });
    // Someone with the database's rights sets the append-only trigger aside and cuts the tail.
    await db.$transaction(async (tx) => {
      await tx.$executeRawUnsafe(`SET LOCAL session_replication_role = replica`);
      await tx.$executeRawUnsafe(`DELETE FROM "AuditLog" WHERE "businessId" = $1 AND "seq" >= 2`, businessId);
    });
    const cut = await owner.caller.auditLog.verify();
    expect(cut).toMatchObject({ ok: false, entries: 1 });
  });

  it("keeps a transaction hash (public, names what was credited) and drops every secret and its hash", async () => {
    const { businessId } = await domainBusiness();
    const owner = await staff(businessId, "OWNER");
    const txHash = `0x${"ab".repeat(32)}`;
    const input = { environment: "TEST", txHash, keyHash: "k-hash", previousKeyHash: "p-hash", secret: "s3cret", inviteTokenHash: "i-hash", rawTx: "0xraw" };
    await audited({ businessId, user: owner.user, headers: new Headers() }, "funding.verify", input, async () => {
      // As the funding route does: its change in a transaction, which carries the entry (input as `after`).
      await db.$transaction(async (tx) => tx.business.findUnique({ where: { id: businessId } }));
      return { ok: true as const, data: { credited: true } };
    });
    const { data } = await owner.caller.auditLog.list({});
    expect(data[0]).toMatchObject({ action: "funding.verify", after: { environment: "TEST", txHash } });
    for (const v of ["k-hash", "p-hash", "s3cret", "i-hash", "0xraw"]) expect(JSON.stringify(data[0])).not.toContain(v);
  });

  it("a transaction that fails after the entry was added gives it back: the mutation's retry records it once", async () => {
    const { businessId } = await domainBusiness();
    const owner = await staff(businessId, "OWNER");
    // The entry's insert fails in a transaction that asks for it (SET LOCAL), after the change.
    await db.$executeRawUnsafe(`CREATE FUNCTION "audit_test_once"() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF current_setting('rts.refuse_audit', true) = 'on' THEN RAISE EXCEPTION 'audit refused'; END IF; RETURN NEW; END $$`);
    await db.$executeRawUnsafe(`CREATE TRIGGER "audit_test_once" BEFORE INSERT ON "AuditLog" FOR EACH ROW EXECUTE FUNCTION "audit_test_once"()`);
    let attempt = 0;
    try {
      await audited({ businessId, user: owner.user, headers: new Headers() }, "tiers.update", { environment: "TEST" }, async () => {
        for (;;) {
          attempt += 1;
          try {
            await db.$transaction(async (tx) => {
              if (attempt === 1) await tx.$executeRawUnsafe(`SET LOCAL rts.refuse_audit = 'on'`);
            });
            return { ok: true as const, data: {} };
          } catch (e) {
            if (attempt > 1) throw e;
          }
        }
      });
    } finally {
      await db.$executeRawUnsafe(`DROP TRIGGER "audit_test_once" ON "AuditLog"`);
      await db.$executeRawUnsafe(`DROP FUNCTION "audit_test_once"()`);
    }
    expect(attempt).toBe(2);
    const { data } = await owner.caller.auditLog.list({ action: "tiers.update" });
    expect(data).toHaveLength(1);
  });

  it("records nothing for a refused or failed mutation, and filters by actor, action and time", async () => {
    const { businessId } = await domainBusiness();
    const owner = await staff(businessId, "OWNER");
    const member = await staff(businessId, "MEMBER");
    await expect(member.caller.config.updateSpend({ environment: "TEST", lowPoolAlertEth: "1" })).rejects.toThrow();
    await expect(owner.caller.tiers.update({ tierId: "nope", name: "x" })).rejects.toThrow();
    await member.caller.config.updateGeneral({ environment: "TEST", businessName: "Renamed by a member" });
    await owner.caller.config.updateGeneral({ environment: "LIVE", bonusEth: "0.002" });
    expect((await owner.caller.auditLog.list({})).data).toHaveLength(2);
    expect((await owner.caller.auditLog.list({ actor: member.user.email })).data.map((a) => a.environment)).toEqual(["TEST"]);
    expect((await owner.caller.auditLog.list({ environment: "LIVE" })).data).toHaveLength(1);
    expect((await owner.caller.auditLog.list({ action: "config." })).data).toHaveLength(2);
    expect((await owner.caller.auditLog.list({ action: "tiers.create" })).data).toHaveLength(0);
    expect((await owner.caller.auditLog.list({ from: new Date(Date.now() + 60_000).toISOString() })).data).toHaveLength(0);
    const page = await owner.caller.auditLog.list({ limit: 1 });
    expect((await owner.caller.auditLog.list({ limit: 1, cursor: page.nextCursor! })).data[0].actor.userId).toBe(member.user.id);
    await expect(member.caller.auditLog.list({})).rejects.toThrow(/owner/i);
  });

  it("the entry commits with the change or not at all", async () => {
    const { businessId } = await domainBusiness();
    const owner = await staff(businessId, "OWNER");
    await db.$executeRawUnsafe(`CREATE FUNCTION "audit_test_refuse"() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'audit refused'; END $$`);
    await db.$executeRawUnsafe(`CREATE TRIGGER "audit_test_refuse" BEFORE INSERT ON "AuditLog" FOR EACH ROW EXECUTE FUNCTION "audit_test_refuse"()`);
    try {
      await expect(owner.caller.config.updateGeneral({ environment: "TEST", bonusEth: "0.003" })).rejects.toThrow();
      await expect(owner.caller.tiers.create({ name: "Silver", minReferrals: 3, referralRewardEth: "0.01", bonusEth: "0" })).rejects.toThrow();
    } finally {
      await db.$executeRawUnsafe(`DROP TRIGGER "audit_test_refuse" ON "AuditLog"`);
      await db.$executeRawUnsafe(`DROP FUNCTION "audit_test_refuse"()`);
    }
    const cfg = await owner.caller.config.get({ environment: "TEST" } as never);
    expect(JSON.stringify(cfg)).not.toContain("0.003");
    // Both rolled back with their refused entries.
    expect(await db.tier.count({ where: { businessId, name: "Silver" } })).toBe(0);
  });

  it("is append-only", async () => {
    const { businessId } = await domainBusiness();
    const owner = await staff(businessId, "OWNER");
    await owner.caller.config.updateGeneral({ environment: "TEST", bonusEth: "0.001" });
    const row = await db.auditLog.findFirstOrThrow({ where: { businessId } });
    await expect(db.auditLog.update({ where: { id: row.id }, data: { action: "nothing" } })).rejects.toThrow(/append-only/);
    await expect(db.auditLog.delete({ where: { id: row.id } })).rejects.toThrow(/append-only/);
  });
});
