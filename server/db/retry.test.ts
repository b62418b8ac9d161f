// A transaction aborted as a deadlock victim (or by a serialization failure) runs again from the
// start, its aborted attempt having left nothing; any other failure is answered at once.
import { afterAll, describe, expect, it } from "vitest";
import { db, type Tx } from "./client";
import { isRetryableConflict, transactionRetried } from "./retry";

const BIZ = "biz-retry";
const raise = (code: string) => `DO $$ BEGIN RAISE EXCEPTION 'raised for the test' USING ERRCODE = '${code}'; END $$`;
const insertBusiness = (tx: Tx) =>
  tx.$executeRawUnsafe(`INSERT INTO "Business" (id, name, "ownerId", "updatedAt") VALUES ($1, 'Retry', 'o-retry', now())`, BIZ);

afterAll(async () => {
  await db.$executeRawUnsafe(`DELETE FROM "Business" WHERE id = $1`, BIZ);
});

describe("transactionRetried", () => {
  it("runs a deadlock victim again; the aborted attempt's writes are gone", async () => {
    let attempts = 0;
    const out = await transactionRetried(async (tx) => {
      attempts++;
      await insertBusiness(tx); // the same row each attempt: a second insert would clash if the first had stayed
      if (attempts === 1) await tx.$executeRawUnsafe(raise("40P01"));
      return attempts;
    });
    expect(out).toBe(2);
    expect(await db.business.count({ where: { id: BIZ } })).toBe(1);
    await db.$executeRawUnsafe(`DELETE FROM "Business" WHERE id = $1`, BIZ);
  });

  /** A transaction that fails with `code` on every attempt: the error it ends with, and how many attempts ran. */
  const alwaysFailing = async (code: string) => {
    let attempts = 0;
    const e = await transactionRetried(async (tx) => {
      attempts++;
      await tx.$executeRawUnsafe(raise(code));
    }).catch((err: unknown) => err);
    return { e, attempts };
  };

  it("runs a serialization failure again, and gives up after three attempts", async () => {
    const { e, attempts } = await alwaysFailing("40001");
    expect(isRetryableConflict(e)).toBe(true);
    expect(attempts).toBe(3);
  });

  it("answers any other failure at once", async () => {
    const { e, attempts } = await alwaysFailing("23514");
    expect(String((e as Error).message)).toMatch(/23514/);
    expect(isRetryableConflict(e)).toBe(false);
    expect(attempts).toBe(1);
  });
});
