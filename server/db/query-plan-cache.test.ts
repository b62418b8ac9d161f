// The query-plan cache: a repeated read reuses its plan and answers exactly as without it; a
// read with other values gets its own plan; writes are always compiled afresh; execution never
// changes a remembered plan.
import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { db } from "./client";
import { queryPlanStats } from "./query-plan-cache";

const hex = () => randomBytes(5).toString("hex");

afterEach(() => {
  delete process.env.QUERY_PLAN_CACHE;
});

async function twoUsers() {
  const a = await db.user.create({ data: { id: `u-${hex()}`, name: "Ann", email: `ann-${hex()}@example.com` } });
  const b = await db.user.create({ data: { id: `u-${hex()}`, name: "Bob", email: `bob-${hex()}@example.com` } });
  return { a, b };
}

describe("query plan cache", () => {
  it("is installed on the client's compiler: a repeated read is a hit", async () => {
    const { a } = await twoUsers();
    await db.user.findUnique({ where: { id: a.id } });
    const before = { ...queryPlanStats };
    const again = await db.user.findUnique({ where: { id: a.id } });
    expect(again?.email).toBe(a.email);
    expect(queryPlanStats.hits).toBe(before.hits + 1);
    expect(queryPlanStats.misses).toBe(before.misses);
  });

  it("a plan is only reused for the very same query: other values get their own plan and their own rows", async () => {
    const { a, b } = await twoUsers();
    for (let i = 0; i < 3; i++) {
      expect((await db.user.findUnique({ where: { id: a.id } }))?.name).toBe("Ann");
      expect((await db.user.findUnique({ where: { id: b.id } }))?.name).toBe("Bob");
      expect(await db.user.count({ where: { id: { in: [a.id, b.id] } } })).toBe(2);
      const list = await db.user.findMany({ where: { id: { in: [a.id, b.id] } }, orderBy: { name: "asc" }, include: { sessions: true } });
      expect(list.map((u) => u.name)).toEqual(["Ann", "Bob"]);
    }
    // Data changes between two identical reads are seen: the plan is cached, not the answer.
    await db.user.update({ where: { id: a.id }, data: { name: "Anna" } });
    expect((await db.user.findUnique({ where: { id: a.id } }))?.name).toBe("Anna");
  });

  it("writes are compiled every time: generated defaults stay fresh", async () => {
    const before = { ...queryPlanStats };
    const ids = new Set<string>();
    const email = () => `m-${hex()}@example.com`;
    const owner = await db.user.create({ data: { id: `u-${hex()}`, name: "Owner", email: email() } });
    const biz = await db.business.create({ data: { name: "Plan Co", ownerId: owner.id } });
    for (let i = 0; i < 3; i++) ids.add((await db.member.create({ data: { businessId: biz.id, email: email() } })).id);
    expect(ids.size).toBe(3);
    expect(queryPlanStats.hits).toBe(before.hits);
  });

  it("QUERY_PLAN_CACHE=0 compiles every read", async () => {
    const { a } = await twoUsers();
    process.env.QUERY_PLAN_CACHE = "0";
    const before = { ...queryPlanStats };
    await db.user.findUnique({ where: { id: a.id } });
    await db.user.findUnique({ where: { id: a.id } });
    expect(queryPlanStats).toEqual(before);
  });
});
