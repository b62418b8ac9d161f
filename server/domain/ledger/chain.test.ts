// The ledger's hash chain (migration 0079): every entry is chained by the database as it is
// written (single writes, createMany, raw multi-row statements), the verifier recomputes it, a
// changed amount, a removed or a reordered entry breaks it, and rows can be neither updated nor
// deleted. The concurrent burst fails on PostgreSQL without the trigger's pool lock.
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { creditLedger, lockPool } from "./service";
import { debitLedger } from "../rules/debit";
import { verifyLedger, type LedgerExportEntry } from "./export-format";
import { ledgerEntries, ledgerExportLines, ledgerHeader, verifyStoredLedger } from "./verify";

const ENV = "TEST" as const;

async function business() {
  return (await db.business.create({ data: { name: "Chain Co", ownerId: `owner-${randomUUID()}` } })).id;
}

const credit = (businessId: string, amountWei: bigint, memo: string | null = null) =>
  db.$transaction((tx) => creditLedger(tx, { businessId, environment: ENV, amountWei, kind: "FUNDING", memo }));

async function exported(businessId: string) {
  const lines: string[] = [];
  for await (const l of ledgerExportLines(businessId, ENV)) lines.push(l);
  const [header, ...entries] = lines.map((l) => JSON.parse(l));
  return { header, entries: entries as LedgerExportEntry[] };
}

describe("ledger hash chain", () => {
  it("chains every write path in order, per business and environment, and the verifier agrees with the database", async () => {
    const b = await business();
    const other = await business();
    await credit(b, 1000n, "first deposit, «ünïcode» memo");
    await credit(other, 5n);
    await db.$transaction(async (tx) => debitLedger(tx, await lockPool(tx, b, ENV), { businessId: b, environment: ENV, amountWei: 10n, kind: "REWARD" }));
    await db.ledgerEntry.createMany({
      data: [
        { businessId: b, environment: ENV, kind: "ADJUSTMENT", amountWei: "-7", memo: "a, b" },
        { businessId: b, environment: ENV, kind: "ADJUSTMENT", amountWei: "3" },
        { businessId: b, environment: "LIVE", kind: "FUNDING", amountWei: "9" },
      ],
    });
    await db.$executeRawUnsafe(
      `INSERT INTO "LedgerEntry" (id, "businessId", environment, kind, "amountWei") SELECT 'raw-' || g, $1, 'TEST', 'ADJUSTMENT', -1 FROM generate_series(1, 25) g`,
      b,
    );
    const { header, entries } = await exported(b);
    expect(entries.map((e) => e.seq)).toEqual(Array.from({ length: 29 }, (_, i) => String(i + 1)));
    expect(header).toMatchObject({ businessId: b, environment: ENV, ledgerSeq: "29", ledgerHead: entries[28].hash });
    expect(await verifyStoredLedger(b, ENV)).toEqual({ entries: 29, head: entries[28].hash, ok: true, firstBadEntryId: null });
    expect(await verifyStoredLedger(b, "LIVE")).toMatchObject({ entries: 1, ok: true });
    expect(await verifyStoredLedger(other, ENV)).toMatchObject({ entries: 1, ok: true });
    expect(await verifyStoredLedger(other, "LIVE")).toEqual({ entries: 0, head: null, ok: true, firstBadEntryId: null });
  });

  it("a changed amount, a removed entry, a reordered pair or a cut tail each fail verification of an export", async () => {
    const b = await business();
    for (let i = 1; i <= 6; i++) await credit(b, BigInt(i * 10));
    const { header, entries } = await exported(b);
    expect(await verifyLedger(header, entries)).toMatchObject({ ok: true, entries: 6 });

    const changed = entries.map((e, i) => (i === 2 ? { ...e, amountWei: "31" } : e));
    expect(await verifyLedger(header, changed)).toMatchObject({ ok: false, firstBadEntryId: entries[2].ledgerEntryId });

    const removed = entries.filter((_, i) => i !== 3);
    expect(await verifyLedger(header, removed)).toMatchObject({ ok: false, firstBadEntryId: entries[4].ledgerEntryId });

    const reordered = [entries[0], entries[2], entries[1], ...entries.slice(3)];
    expect(await verifyLedger(header, reordered)).toMatchObject({ ok: false, firstBadEntryId: entries[2].ledgerEntryId });

    // Renumbered to hide the swap: the hash covers seq and the previous hash, so it still fails.
    const renumbered = reordered.map((e, i) => ({ ...e, seq: String(i + 1) }));
    expect(await verifyLedger(header, renumbered)).toMatchObject({ ok: false, firstBadEntryId: entries[2].ledgerEntryId });

    // The last entry dropped: every remaining hash holds, the head kept beside the chain does not.
    expect(await verifyLedger(header, entries.slice(0, 5))).toMatchObject({ ok: false, firstBadEntryId: null, entries: 5 });
  });

  it("an entry changed behind the triggers' back fails verification of the stored chain", async () => {
    const b = await business();
    for (let i = 1; i <= 3; i++) await credit(b, 100n);
    const all: LedgerExportEntry[] = [];
    for await (const e of ledgerEntries(b, ENV, "3")) all.push(e);
    const second = all[1];
    await db.$transaction(async (tx) => {
      await tx.$executeRawUnsafe(`SET LOCAL session_replication_role = replica`);
      await tx.$executeRawUnsafe(`UPDATE "LedgerEntry" SET "amountWei" = 1000 WHERE id = $1`, second.ledgerEntryId);
    });
    expect(await verifyStoredLedger(b, ENV)).toMatchObject({ ok: false, firstBadEntryId: second.ledgerEntryId, entries: 3 });
  });

  it("refuses to update or delete a ledger entry; deleting the whole business takes its books with it", async () => {
    const b = await business();
    await credit(b, 100n);
    const entry = await db.ledgerEntry.findFirstOrThrow({ where: { businessId: b } });
    await expect(db.ledgerEntry.update({ where: { id: entry.id }, data: { memo: "rewritten" } })).rejects.toThrow(/append-only/);
    await expect(db.ledgerEntry.delete({ where: { id: entry.id } })).rejects.toThrow(/append-only/);
    await expect(db.$executeRawUnsafe(`DELETE FROM "LedgerEntry" WHERE "businessId" = '${b}'`)).rejects.toThrow();
    expect(await verifyStoredLedger(b, ENV)).toMatchObject({ ok: true, entries: 1 });
    await db.business.delete({ where: { id: b } });
    expect(await db.ledgerEntry.count({ where: { businessId: b } })).toBe(0);
  });

  it("concurrent writers of one pool extend one unbroken chain", async () => {
    const b = await business();
    await Promise.all(Array.from({ length: 12 }, (_, i) => credit(b, BigInt(i + 1))));
    await Promise.all(
      Array.from({ length: 6 }, () => db.ledgerEntry.createMany({ data: [1, 2, 3].map(() => ({ businessId: b, environment: ENV, kind: "ADJUSTMENT" as const, amountWei: "1" })) })),
    );
    const header = await ledgerHeader(b, ENV);
    expect(header.ledgerSeq).toBe("30");
    expect(await verifyStoredLedger(b, ENV)).toMatchObject({ ok: true, entries: 30 });
  });

  it("rows of one statement chain from one to the next, interleaved pools too; a row skipped after it was chained refuses its statement instead of leaving a gap", async () => {
    const b = await business();
    const other = await business();
    await credit(b, 100n);
    // One statement, two pools taking turns: each row follows its own pool's previous one.
    await db.$executeRawUnsafe(
      `INSERT INTO "LedgerEntry" (id, "businessId", environment, kind, "amountWei") SELECT 'mix-' || g, CASE WHEN g % 2 = 0 THEN $1 ELSE $2 END, 'TEST', 'ADJUSTMENT', 1 FROM generate_series(1, 10) g`,
      b,
      other,
    );
    expect(await verifyStoredLedger(b, ENV)).toMatchObject({ ok: true, entries: 6 });
    expect(await verifyStoredLedger(other, ENV)).toMatchObject({ ok: true, entries: 5 });
    // The first row exists already: ON CONFLICT skips it after its BEFORE trigger gave it the next
    // sequence number, so the second row would take the one after and leave a hole in the chain.
    const [first] = await db.$queryRawUnsafe<{ id: string }[]>(`SELECT id FROM "LedgerEntry" WHERE "businessId" = $1 AND environment = 'TEST' ORDER BY seq LIMIT 1`, b);
    await expect(
      db.$executeRawUnsafe(
        `INSERT INTO "LedgerEntry" (id, "businessId", environment, kind, "amountWei") VALUES ($1, $2, 'TEST', 'ADJUSTMENT', 1), ('after-skip', $2, 'TEST', 'ADJUSTMENT', 1) ON CONFLICT (id) DO NOTHING`,
        first.id,
        b,
      ),
    ).rejects.toThrow();
    expect(await db.ledgerEntry.count({ where: { id: "after-skip" } })).toBe(0);
    // Alone, a skipped row leaves nothing behind: the next statement chains from the real head.
    await db.$executeRawUnsafe(`INSERT INTO "LedgerEntry" (id, "businessId", environment, kind, "amountWei") VALUES ($1, $2, 'TEST', 'ADJUSTMENT', 1) ON CONFLICT (id) DO NOTHING`, first.id, b);
    await db.$transaction(async (tx) => debitLedger(tx, await lockPool(tx, b, ENV), { businessId: b, environment: ENV, amountWei: 2n, kind: "REWARD" }));
    const { entries } = await exported(b);
    expect(entries.map((e) => e.seq)).toEqual(["1", "2", "3", "4", "5", "6", "7"]);
    expect(await verifyStoredLedger(b, ENV)).toMatchObject({ ok: true, entries: 7 });
    expect((await ledgerHeader(b, ENV)).ledgerSeq).toBe("7");
  });

  it("npm run ledger:verify checks an export offline: intact, then with one amount changed", async () => {
    const b = await business();
    for (let i = 1; i <= 4; i++) await credit(b, BigInt(i));
    const lines: string[] = [];
    for await (const l of ledgerExportLines(b, ENV)) lines.push(l);
    const dir = mkdtempSync(path.join(tmpdir(), "rts-ledger-"));
    const run = (file: string, ...extra: string[]) => {
      try {
        return { code: 0, out: JSON.parse(execFileSync("npx", ["tsx", "scripts/ledger-verify.ts", file, ...extra], { encoding: "utf8" })) };
      } catch (e) {
        const err = e as { status: number; stdout: string };
        return { code: err.status, out: JSON.parse(err.stdout) };
      }
    };
    writeFileSync(path.join(dir, "ok.jsonl"), lines.join(""));
    const intact = run(path.join(dir, "ok.jsonl"));
    expect(intact).toMatchObject({ code: 0, out: { ok: true, entries: 4, firstBadEntryId: null } });
    const second = JSON.parse(lines[2]) as LedgerExportEntry;
    expect(run(path.join(dir, "ok.jsonl"), "--head", second.hash)).toMatchObject({ code: 0, out: { ok: true, publishedHeadFound: true } });
    expect(run(path.join(dir, "ok.jsonl"), "--head", "f".repeat(64))).toMatchObject({ code: 1, out: { ok: false, publishedHeadFound: false } });
    writeFileSync(path.join(dir, "bad.jsonl"), lines.map((l, i) => (i === 2 ? l.replace(/"amountWei":"2"/, '"amountWei":"20"') : l)).join(""));
    expect(run(path.join(dir, "bad.jsonl"))).toMatchObject({ code: 1, out: { ok: false, firstBadEntryId: second.ledgerEntryId } });
  }, 120_000);
});
