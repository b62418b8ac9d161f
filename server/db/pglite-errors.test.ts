// A failed raw statement keeps the database's code and message, on PGlite as on PostgreSQL: in
// the error Prisma throws (and so in the logs), and for the checks that recognise an error by them;
// and a COMMIT the database refuses is an error of the transaction, not a silent rollback.
import { afterAll, describe, expect, it } from "vitest";
import { db } from "./client";
import { isUniqueViolation } from "./unique-violation";

const BIZ = "biz-raw-errors";

afterAll(async () => {
  await db.$executeRawUnsafe(`DELETE FROM "Business" WHERE id = $1`, BIZ);
});

describe("errors of raw statements", () => {
  it("a unique violation says so, with PostgreSQL's code and message", async () => {
    const insert = () => db.$executeRawUnsafe(`INSERT INTO "Business" (id, name, "ownerId", "updatedAt") VALUES ($1, 'Raw errors', 'o-raw', now())`, BIZ);
    await insert();
    const e = await insert().then(
      () => null,
      (err: unknown) => err,
    );
    expect(e).not.toBeNull();
    expect(String((e as Error).message)).toMatch(/Code: `23505`/);
    expect(String((e as Error).message)).toMatch(/duplicate key value violates unique constraint "Business_pkey"/);
    expect(isUniqueViolation(e)).toBe(true);
  });

  it("an exception raised by a trigger keeps its message", async () => {
    await db.$executeRawUnsafe(`INSERT INTO "Business" (id, name, "ownerId", "updatedAt") VALUES ($1, 'Raw errors', 'o-raw', now()) ON CONFLICT DO NOTHING`, BIZ);
    await db.$executeRawUnsafe(`INSERT INTO "LedgerEntry" (id, "businessId", environment, kind, "amountWei") VALUES ('raw-errors-fund', $1, 'TEST', 'FUNDING', 1)`, BIZ);
    // The ledger is append-only: its trigger refuses an update (migration 0079).
    const e = await db.$executeRawUnsafe(`UPDATE "LedgerEntry" SET memo = 'changed' WHERE id = 'raw-errors-fund'`).then(
      () => null,
      (err: unknown) => err,
    );
    expect(e).not.toBeNull();
    expect(String((e as Error).message)).toMatch(/Code: `23514`/);
    expect(String((e as Error).message)).toMatch(/LedgerEntry is append-only: entries cannot be updated or deleted/);
  });

  it("a COMMIT the database refuses fails the transaction: nothing of it is kept, and the caller hears it", async () => {
    const table = `commit_refused_${Date.now()}`;
    await db.$executeRawUnsafe(`CREATE TABLE ${table} (x int UNIQUE DEFERRABLE INITIALLY DEFERRED)`);
    try {
      // The duplicate is checked only at COMMIT.
      const e = await db
        .$transaction(async (tx) => {
          await tx.$executeRawUnsafe(`INSERT INTO ${table} VALUES (1), (1)`);
        })
        .then(
          () => null,
          (err: unknown) => err,
        );
      expect(e, "the transaction answered as committed").not.toBeNull();
      expect(isUniqueViolation(e)).toBe(true);
      expect(await db.$queryRawUnsafe(`SELECT count(*)::int AS n FROM ${table}`)).toEqual([{ n: 0 }]);
      // The client goes on: the next transaction commits.
      await db.$transaction(async (tx) => tx.$executeRawUnsafe(`INSERT INTO ${table} VALUES (2)`));
      expect(await db.$queryRawUnsafe(`SELECT count(*)::int AS n FROM ${table}`)).toEqual([{ n: 1 }]);
    } finally {
      await db.$executeRawUnsafe(`DROP TABLE ${table}`);
    }
  });
});
