// The bounds on the app's PostgreSQL connections (openAppPool, server/db/client.ts), through
// Prisma transactions on a pool of their own with short bounds: a statement that waits too long
// for a lock is cancelled by the server and its transaction leaves nothing locked; a transaction
// left idle is ended by the server; a connection whose statement gets no answer is destroyed and
// leaves the pool; cached plans are remade as a table grows. PostgreSQL only (PGlite has one
// in-process connection and none of these waits): skipped there (skipIf).
import { randomBytes } from "node:crypto";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { dbKind, openAppPool, type ConnectionBounds as Bounds } from "./client";
import { PrismaClient } from "./generated";

const BOUNDS: Bounds = { statementMs: 300, idleInTransactionMs: 60_000, noAnswerMs: 5_000, planRefreshMs: 0 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const onPostgres = () => dbKind() === "postgres";

const opened: { end: () => Promise<void> }[] = [];
afterEach(async () => {
  for (const o of opened.splice(0)) await o.end().catch(() => {});
});

async function appClient(bounds: Partial<Bounds>, max = 2) {
  const pool = await openAppPool(process.env.DATABASE_URL!, max, { ...BOUNDS, ...bounds });
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) as never });
  opened.push({ end: () => prisma.$disconnect() });
  return { pool, prisma };
}

async function plainClient() {
  const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
  c.on("error", () => {});
  await c.connect();
  opened.push({ end: () => c.end() });
  return c;
}

async function newUser(c: pg.Client) {
  const id = `u-${randomBytes(5).toString("hex")}`;
  await c.query(`INSERT INTO "user" (id, name, email, "emailVerified", "createdAt", "updatedAt") VALUES ($1, 'B', $2, false, now(), now())`, [id, `${id}@example.com`]);
  return id;
}

/** Backends of this database, other than the asking one, that sit idle in an open transaction. */
async function idleInTransaction(c: pg.Client) {
  const r = await c.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state LIKE 'idle in transaction%'`);
  return r.rows[0].n as number;
}

describe("connection bounds (PostgreSQL)", () => {
  it.skipIf(!onPostgres())("a lock wait past the statement bound is cancelled by the server: the transaction fails, and once the holder lets go nothing of it holds the row", async () => {
    const { prisma } = await appClient({});
    const holder = await plainClient();
    const other = await plainClient();
    const id = await newUser(holder);
    await holder.query("BEGIN");
    await holder.query(`SELECT id FROM "user" WHERE id = $1 FOR UPDATE`, [id]);
    // The transaction waits for the row the holder keeps locked for longer than the bound…
    const waiting = prisma.$transaction(async (tx) => tx.$queryRawUnsafe(`SELECT id FROM "user" WHERE id = $1 FOR UPDATE`, id), { timeout: 20_000 });
    await expect(waiting).rejects.toThrow(/statement timeout|57014/);
    await sleep(1_200); // longer than every bound of the client (a bound kept only there would have dropped the ROLLBACK by now)
    await holder.query("COMMIT");
    await sleep(300);
    // …and when the holder commits, no connection of the app sits in a transaction holding it.
    expect(await idleInTransaction(other)).toBe(0);
    await expect(other.query(`SELECT id FROM "user" WHERE id = $1 FOR UPDATE NOWAIT`, [id])).resolves.toMatchObject({ rowCount: 1 });
    // The pool's connection is clean: the next transaction runs on it.
    expect(await prisma.$transaction(async (tx) => tx.$queryRawUnsafe<{ one: number }[]>(`SELECT 1 AS one`))).toEqual([{ one: 1 }]);
  });

  it.skipIf(!onPostgres())("a transaction left idle past its bound is ended by the server: its locks go, and the pool lets the connection go", async () => {
    const { pool } = await appClient({ idleInTransactionMs: 300 });
    const other = await plainClient();
    const id = await newUser(other);
    const leaked = await pool.connect(); // checked out and never released: a leak
    await leaked.query("BEGIN");
    await leaked.query(`SELECT id FROM "user" WHERE id = $1 FOR UPDATE`, [id]);
    await expect(other.query(`SELECT id FROM "user" WHERE id = $1 FOR UPDATE NOWAIT`, [id])).rejects.toThrow(/could not obtain lock/);
    await sleep(1_000);
    await expect(other.query(`SELECT id FROM "user" WHERE id = $1 FOR UPDATE NOWAIT`, [id])).resolves.toMatchObject({ rowCount: 1 });
    expect(pool.totalCount).toBe(0); // released with its error (freeClientsThatDie), not handed out again
    const r = await pool.query(`SELECT 1 AS one`);
    expect(r.rows).toEqual([{ one: 1 }]);
  });

  it.skipIf(!onPostgres())("a statement without an answer within the client's bound destroys its connection: it fails, and so does what was queued behind it", async () => {
    // The server's bound is out of the way here (a dead server gives no answer at all).
    const { pool } = await appClient({ statementMs: 60_000, noAnswerMs: 300 });
    const c = await pool.connect();
    const slow = c.query(`SELECT pg_sleep(3)`);
    const queued = c.query(`SELECT 1 AS one`);
    await expect(slow).rejects.toThrow();
    await expect(queued).rejects.toThrow();
    await sleep(50);
    expect(pool.totalCount).toBe(0);
    expect((await pool.query(`SELECT 1 AS one`)).rows).toEqual([{ one: 1 }]);
  });

  it.skipIf(!onPostgres())("cached plans are remade as the table grows: a plan made on a tiny table stops being a sequential scan", async () => {
    const plan = async (pool: pg.Pool) => {
      const c = await pool.connect();
      try {
        const r = await c.query(`EXPLAIN EXECUTE bounds_probe('x')`);
        return r.rows.map((x) => String(x["QUERY PLAN"])).join("\n");
      } finally {
        c.release();
      }
    };
    const setup = await plainClient();
    for (const refreshMs of [0, 200]) {
      const table = `bounds_${randomBytes(4).toString("hex")}`;
      await setup.query(`CREATE TABLE ${table} (id text PRIMARY KEY, v int)`);
      await setup.query(`INSERT INTO ${table} SELECT 'k' || i, i FROM generate_series(1, 5) i`);
      await setup.query(`ANALYZE ${table}`);
      const { pool } = await appClient({ planRefreshMs: refreshMs }, 1);
      const c = await pool.connect();
      await c.query(`PREPARE bounds_probe(text) AS SELECT v FROM ${table} WHERE id = $1`);
      for (let i = 0; i < 6; i++) await c.query(`EXECUTE bounds_probe('k1')`); // past the five custom plans: the generic one is kept
      c.release();
      expect(await plan(pool)).toMatch(/Seq Scan/);
      await setup.query(`INSERT INTO ${table} SELECT 'g' || i, i FROM generate_series(1, 20000) i`);
      await sleep(900); // past the first refresh (200 ms after the connection opened) and the next (400 ms after that)
      // Without a refresh the tiny table's plan stays (no ANALYZE here, as with autovacuum off);
      // with it, the next checkout plans again for the table as it is now.
      if (refreshMs === 0) expect(await plan(pool)).toMatch(/Seq Scan/);
      else expect(await plan(pool)).toMatch(/Index Scan/);
    }
  });
});
