// CSV exports: escaping (quotes, commas, formula injection), filters of the lists, scoping,
// and paging past one batch.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { listBusinessReferralsInput } from "../referrals/browse-schemas";
import { csvCell, eventsCsv, referralsCsv, rewardsCsv } from "./csv";

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
    expect(csvCell("-1")).toBe("'-1");
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
});
