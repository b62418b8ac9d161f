// CSV exports: escaping (quotes, commas, formula injection), filters of the lists, scoping,
// and paging past one batch.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { listBusinessReferralsInput } from "../referrals/browse-schemas";
import { csvCell } from "../../shared/csv";
import { eventsCsv, payoutsCsv, referralsCsv, rewardsCsv } from "./csv";

const hex = () => randomBytes(5).toString("hex");
const collect = async (g: AsyncGenerator<string>) => {
  let out = "";
  for await (const l of g) out += l;
  return out.split("\r\n").filter(Boolean);
};

describe("csv exports", () => {
  it("escapes quotes, separators and formulas", () => {
    expect(csvCell('say "hi", ok')).toBe('"say ""hi"", ok"');
    expect(csvCell("=HYPERLINK(\"x\")")).toBe("\"'=HYPERLINK(\"\"x\"\")\"");
    // A plain negative number (a ledger debit) stays a number; anything more after a sign is quoted.
    expect(csvCell("-1")).toBe("-1");
    expect(csvCell("-0.015")).toBe("-0.015");
    expect(csvCell("-2+3+cmd|' /C calc'!A0")).toBe("'-2+3+cmd|' /C calc'!A0");
    expect(csvCell("-1e3")).toBe("'-1e3");
    expect(csvCell(3)).toBe("3");
    expect(csvCell(null)).toBe("");
  });

  it("exports the filtered referrals of one business, every page, newest first", async () => {
    const b = await db.business.create({ data: { name: "Csv Co", ownerId: `o-${hex()}` } });
    const other = await db.business.create({ data: { name: "Other", ownerId: `o-${hex()}` } });
    const alice = await db.participant.create({ data: { businessId: b.id, environment: "TEST", referralCode: `A${hex()}`, email: "alice@example.com", name: "=Alice, the \"best\"" } });
    const n = 520;
    await db.participant.createMany({ data: Array.from({ length: n }, (_, i) => ({ businessId: b.id, environment: "TEST" as const, referralCode: `R${i}-${hex()}`, email: `r${i}@example.com` })) });
    const num = (e: string | null) => Number(e!.slice(1).split("@")[0]);
    const referred = (await db.participant.findMany({ where: { businessId: b.id, email: { startsWith: "r" } } })).sort((x, y) => num(x.email) - num(y.email));
    const t0 = Date.UTC(2025, 0, 1);
    await db.referral.createMany({ data: referred.map((p, i) => ({ businessId: b.id, environment: "TEST" as const, referrerId: alice.id, referredId: p.id, status: i % 2 ? ("REWARDED" as const) : ("PENDING" as const), source: "web", createdAt: new Date(t0 + i * 1000) })) });
    const o1 = await db.participant.create({ data: { businessId: other.id, environment: "TEST", referralCode: `O${hex()}` } });
    const o2 = await db.participant.create({ data: { businessId: other.id, environment: "TEST", referralCode: `P${hex()}` } });
    await db.referral.create({ data: { businessId: other.id, environment: "TEST", referrerId: o1.id, referredId: o2.id } });

    const all = await collect(referralsCsv(b.id, listBusinessReferralsInput.omit({ limit: true, cursor: true }).parse({ environment: "TEST" })));
    expect(all[0].split(",").slice(0, 3)).toEqual(["referralId", "environment", "status"]);
    expect(all).toHaveLength(n + 1);
    expect(new Set(all.slice(1).map((l) => l.split(",")[0])).size).toBe(n);
    expect(all[1]).toContain("\"'=Alice, the \"\"best\"\"\"");
    expect(all[1]).toContain("r519@example.com");
    const rewarded = await collect(referralsCsv(b.id, listBusinessReferralsInput.omit({ limit: true, cursor: true }).parse({ environment: "TEST", status: "REWARDED", search: "r51" })));
    expect(rewarded.slice(1).map((l) => l.match(/r\d+@example\.com/)![0])).toEqual(["r519@example.com", "r517@example.com", "r515@example.com", "r513@example.com", "r511@example.com", "r51@example.com"]);
    expect(await collect(referralsCsv(b.id, listBusinessReferralsInput.omit({ limit: true, cursor: true }).parse({ environment: "LIVE" })))).toHaveLength(1);

    expect(await collect(rewardsCsv(b.id, { environment: "TEST" }))).toHaveLength(1);
    expect(await collect(eventsCsv(b.id, { environment: "TEST" }))).toHaveLength(1);
  });

  it("exports the payouts of one business with their transaction, filtered by status", async () => {
    const b = await db.business.create({ data: { name: "Payout Csv Co", ownerId: `o-${hex()}` } });
    const other = await db.business.create({ data: { name: "Other", ownerId: `o-${hex()}` } });
    const ann = await db.participant.create({ data: { businessId: b.id, environment: "TEST", referralCode: `A${hex()}`, email: "ann@example.com", name: "Ann" } });
    const wallet = "0x8ba1f109551bD432803012645Ac136ddd64DBA72";
    const tx = `0x${"ab".repeat(32)}`;
    const base = { businessId: b.id, environment: "TEST" as const, participantId: ann.id, walletAddress: wallet, fromAddress: wallet };
    await db.payout.create({ data: { ...base, amountWei: "20000000000000000", rewardsWei: "20000000000000000", gasWei: "21000000000000", status: "CONFIRMED", txHash: tx, rawTx: "0x02", nonce: 0, blockNumber: 7n, rewardIds: ["r1", "r2"], createdAt: new Date(Date.UTC(2025, 0, 2)) } });
    await db.payout.create({ data: { ...base, amountWei: "10000000000000000", rewardsWei: "10000000000000000", status: "FAILED", error: "INSUFFICIENT_FUNDS: too little", createdAt: new Date(Date.UTC(2025, 0, 1)) } });
    const o = await db.participant.create({ data: { businessId: other.id, environment: "TEST", referralCode: `O${hex()}` } });
    await db.payout.create({ data: { businessId: other.id, environment: "TEST", participantId: o.id, walletAddress: wallet, fromAddress: wallet, amountWei: "1", rewardsWei: "1", status: "FAILED" } });

    const all = await collect(payoutsCsv(b.id, { environment: "TEST" }));
    expect(all).toHaveLength(3);
    const head = all[0].split(",");
    const row = Object.fromEntries(all[1].split(",").map((v, i) => [head[i], v]));
    expect(row).toMatchObject({ status: "CONFIRMED", amountEth: "0.02", gasEth: "0.000021", walletAddress: wallet, recipientName: "Ann", recipientEmail: "ann@example.com", txHash: tx, nonce: "0", blockNumber: "7", rewardIds: "r1 r2" });
    expect(all[2]).toContain("INSUFFICIENT_FUNDS: too little");
    const failed = await collect(payoutsCsv(b.id, { environment: "TEST", status: "FAILED" }));
    expect(failed).toHaveLength(2);
    expect(await collect(payoutsCsv(b.id, { environment: "LIVE" }))).toHaveLength(1);
  });

  it("exports a commission's rule and rate, and an event's amount and currency", async () => {
    const b = await db.business.create({ data: { name: "Commission Csv Co", ownerId: `o-${hex()}` } });
    const ann = await db.participant.create({ data: { businessId: b.id, environment: "TEST", referralCode: `A${hex()}`, email: "ann@example.com", name: "Ann" } });
    const rule = await db.commissionRule.create({ data: { businessId: b.id, environment: "TEST", name: "10%", eventName: "purchase", recipient: "REFERRER", type: "PERCENT", percent: "10" } });
    const event = await db.trackedEvent.create({ data: { businessId: b.id, environment: "TEST", eventName: "purchase", amount: "19.99", currency: "USD" } });
    const rateAt = new Date(Date.UTC(2025, 0, 3, 12));
    await db.reward.create({ data: { businessId: b.id, environment: "TEST", participantId: ann.id, eventId: event.id, kind: "COMMISSION", requestedWei: "666333333333333", amountWei: "666333333333333", status: "PAID", paidAt: rateAt, ruleId: rule.id, baseAmount: "19.99", baseCurrency: "USD", rate: "3000", rateSource: "FIXED", rateAt } });
    await db.reward.create({ data: { businessId: b.id, environment: "TEST", participantId: ann.id, kind: "MANUAL", requestedWei: "1", amountWei: "1", status: "PAID", paidAt: rateAt } });

    const rewards = await collect(rewardsCsv(b.id, { environment: "TEST" }));
    const head = rewards[0].split(",");
    expect(head.slice(-7)).toEqual(["ruleId", "baseAmount", "baseCurrency", "rate", "rateSource", "rateAt", "reversedEth"]);
    const rows = rewards.slice(1).map((l) => Object.fromEntries(l.split(",").map((v, i) => [head[i], v])));
    expect(rows.find((r) => r.kind === "COMMISSION")).toMatchObject({ amountEth: "0.000666333333333333", ruleId: rule.id, baseAmount: "19.99", baseCurrency: "USD", rate: "3000", rateSource: "FIXED", rateAt: rateAt.toISOString(), reversedEth: "0" });
    expect(rows.find((r) => r.kind === "MANUAL")).toMatchObject({ ruleId: "", baseAmount: "", rate: "", rateAt: "" });

    const events = await collect(eventsCsv(b.id, { environment: "TEST" }));
    const eh = events[0].split(",");
    const e = Object.fromEntries(events[1].split(",").map((v, i) => [eh[i], v]));
    expect(e).toMatchObject({ eventId: event.id, amount: "19.99", currency: "USD" });
  });
});
