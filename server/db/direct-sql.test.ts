// txSql(tx): a transaction's statements outside the Prisma query builder — on PostgreSQL the pg
// connection that the Prisma transaction holds (directSql), on PGlite the transaction itself.
// Either way they see the transaction's writes, it sees theirs, and they commit or roll back
// with it. rawRows reads the same values on both databases, whichever path it takes.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { db, dbKind, directSql, rawRows, txSql } from "./client";

const hex = () => randomBytes(5).toString("hex");
const addUser = (id: string) => [`INSERT INTO "user" (id, name, email, "emailVerified", "createdAt", "updatedAt") VALUES ($1, 'D', $2, false, now(), now())`, id, `${id}@example.com`] as const;

describe("txSql and directSql", () => {
  it("is the direct channel on PostgreSQL (one per transaction), the transaction on PGlite", async () => {
    await db.$transaction(async (tx) => {
      const direct = await directSql(tx);
      if (dbKind() === "postgres") {
        expect(direct).not.toBeNull();
        // Asking again costs no second handshake, and txSql hands out the same channel.
        expect(await directSql(tx)).toBe(direct);
        expect(await txSql(tx)).toBe(direct);
      } else {
        expect(direct).toBeNull();
      }
    });
  });

  it("runs in the transaction: both sides see each other's writes, and it commits with it", async () => {
    const a = `u-${hex()}`;
    const b = `u-${hex()}`;
    await db.$transaction(async (tx) => {
      const sql = await txSql(tx);
      await tx.user.create({ data: { id: a, name: "A", email: `${a}@example.com` } });
      // The statement sees the row Prisma wrote in this (uncommitted) transaction…
      expect(await sql.execute(`UPDATE "user" SET name = 'A2' WHERE id = $1`, a)).toBe(1);
      expect(await sql.execute(...addUser(b))).toBe(1);
      // …and the transaction sees the statement's writes.
      expect((await tx.user.findUniqueOrThrow({ where: { id: a } })).name).toBe("A2");
      expect(await tx.user.count({ where: { id: b } })).toBe(1);
      // Reads: the transaction's own rows, timestamps as UTC instants.
      const [row] = await sql.query<{ id: string; name: string; at: Date }>(`SELECT id, name, '2026-10-25 01:30:00'::timestamp(3) AS at FROM "user" WHERE id = $1`, a);
      expect(row).toEqual({ id: a, name: "A2", at: new Date("2026-10-25T01:30:00.000Z") });
    });
    expect(await db.user.count({ where: { id: { in: [a, b] } } })).toBe(2);
  });

  it.skipIf(dbKind() !== "postgres")("statements issued before the previous one answered run in order, one at a time; a failure fails its own call", async () => {
    // Skipped on PGlite: the transaction there is the connection itself, one awaited statement at a time.
    const ids = Array.from({ length: 6 }, () => `u-${hex()}`);
    const deprecations: string[] = [];
    const onWarning = (w: Error) => void deprecations.push(w.message);
    process.on("warning", onWarning);
    try {
      await expect(
        db.$transaction(async (tx) => {
          const sql = await txSql(tx);
          // Not awaited: each insert, then a read of what the inserts before it wrote.
          const calls = ids.map((id) => [sql.execute(...addUser(id)), sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM "user" WHERE id = ANY($1::text[])`, ids)] as const);
          const counts = await Promise.all(calls.map(([, read]) => read));
          expect(counts.map((r) => r[0].n)).toEqual([1, 2, 3, 4, 5, 6]);
          expect(await Promise.all(calls.map(([write]) => write))).toEqual([1, 1, 1, 1, 1, 1]);
          // A failing statement rejects its own call; the one queued behind it is still answered
          // (by the database, which refuses it too: the transaction is aborted).
          const bad = sql.execute(...addUser(ids[0]));
          const after = sql.query(`SELECT 1`);
          await expect(bad).rejects.toThrow(/duplicate key/);
          await expect(after).rejects.toThrow(/aborted/);
          throw new Error("done");
        }),
      ).rejects.toThrow(/done|aborted/);
      await new Promise((r) => setImmediate(r));
      expect(deprecations.filter((m) => m.includes("already executing a query"))).toEqual([]);
    } finally {
      process.off("warning", onWarning);
    }
    expect(await db.user.count({ where: { id: { in: ids } } })).toBe(0);
  });

  it("rolls back with the transaction", async () => {
    const a = `u-${hex()}`;
    await expect(
      db.$transaction(async (tx) => {
        await (await txSql(tx)).execute(...addUser(a));
        throw new Error("abort");
      }),
    ).rejects.toThrow("abort");
    expect(await db.user.count({ where: { id: a } })).toBe(0);
  });

  it("each transaction has its own connection, also when several run at once", async () => {
    const ids = Array.from({ length: 4 }, () => `u-${hex()}`);
    // On PostgreSQL every transaction writes through its channel, then waits until all have
    // written: none may see another's (uncommitted) row, so no channel was another transaction's
    // connection. PGlite runs one transaction at a time, so there each one runs alone.
    const together = dbKind() === "postgres";
    let written = 0;
    let release!: () => void;
    const allWritten = new Promise<void>((r) => (release = r));
    const seen = await Promise.all(
      ids.map((id, i) =>
        db
          .$transaction(async (tx) => {
            await (await txSql(tx)).execute(...addUser(id));
            if (++written === ids.length) release();
            if (together) await allWritten;
            const visible = (await tx.user.findMany({ where: { id: { in: ids } }, select: { id: true } })).map((u) => u.id);
            if (i % 2) throw Object.assign(new Error("abort"), { visible });
            return visible.filter((v) => v === id || !together);
          })
          .catch((e: Error & { visible?: string[] }) => (e.visible ?? [e.message]).filter((v) => v === id || !together)),
      ),
    );
    if (together) expect(seen).toEqual(ids.map((id) => [id]));
    else seen.forEach((v, i) => expect(v).toContain(ids[i]));
    expect((await db.user.findMany({ where: { id: { in: ids } } })).map((u) => u.id).sort()).toEqual(ids.filter((_, i) => i % 2 === 0).sort());
  });

  it("rawRows: timestamps as UTC instants, arrays, booleans, integers and json, alike on both databases", async () => {
    const [row] = await rawRows<{ at: Date; tags: string[]; ok: boolean; n: number; doc: unknown; none: null }>(
      `SELECT '2026-03-29 01:30:00.123'::timestamp(3) AS at, ARRAY['a', 'b,c', 'd"e', '{x}'] AS tags, true AS ok, 41 + $1::int AS n, '{"k":[1,"x"]}'::jsonb AS doc, NULL AS none`,
      1,
    );
    expect(row.at).toBeInstanceOf(Date);
    expect(row.at.toISOString()).toBe("2026-03-29T01:30:00.123Z");
    expect(row).toMatchObject({ tags: ["a", "b,c", 'd"e', "{x}"], ok: true, n: 42, doc: { k: [1, "x"] }, none: null });
    // Array parameters with awkward elements (and a NULL element) arrive intact.
    const v = ["{", "}", '"', "\\\\", null, "a b"];
    const [back] = await rawRows<{ n: number; nulls: number; joined: string }>(
      `SELECT cardinality($1::text[]) AS n, (SELECT count(*)::int FROM unnest($1::text[]) x WHERE x IS NULL) AS nulls, array_to_string($1::text[], '|') AS joined`,
      v,
    );
    expect(back).toEqual({ n: 6, nulls: 1, joined: v.filter((x) => x !== null).join("|") });
  });
});
