// /track/batch on the embedded database (one connection for the whole process, in this thread):
// a flood of batches must leave room for every other request. Checked by order, not by time: a
// read issued (from a timer) while batches are being written is answered before the flood is over.
import { describe, expect, it } from "vitest";
import { db, dbKind } from "../../db/client";
import { upsertParticipant } from "../participants/service";
import { testBusiness } from "../../../tests/support/jobs-fixtures";
import { acceptEventBatch, batchAdmission, batchTxEvents } from "./service";

const events = (n: number, tag: string) => Array.from({ length: n }, (_, i) => ({ eventName: "page_view", metadata: { campaign: `${tag}-${i}` } }));

async function until(check: () => Promise<boolean>) {
  for (let i = 0; i < 2000 && !(await check()); i++) await new Promise((r) => setTimeout(r, 5));
}

describe("batch admission", () => {
  it("PGlite: a batch is written in short transactions, one batch at a time; PostgreSQL: one transaction", () => {
    expect(batchTxEvents()).toBe(dbKind() === "pglite" ? 5 : 100);
  });

  it("another business's read is answered while a flood of batches is still being written", { timeout: 120_000 }, async () => {
    const flooder = await testBusiness();
    await db.businessConfig.create({ data: { businessId: flooder.businessId, eventProcessing: "SYNC" } });
    const other = await testBusiness();
    await upsertParticipant(other, { userId: "reader" });

    let settled = 0;
    const flood = Array.from({ length: 3 }, (_, b) => acceptEventBatch(flooder, events(60, `b${b}`)).finally(() => settled++));
    await until(async () => (await db.trackedEvent.count({ where: { businessId: flooder.businessId } })) > 0);
    const read = await db.participant.findMany({ where: { businessId: other.businessId } });
    const settledAtRead = settled;
    if (dbKind() === "pglite") expect(batchAdmission().running).toBe(1);
    const out = await Promise.all(flood);

    expect(read).toHaveLength(1);
    // On PGlite the read got the connection between two short transactions of the first batch.
    if (dbKind() === "pglite") expect(settledAtRead).toBe(0);
    // Nothing accepted is lost: every event of every batch is written, once.
    expect(out.every((o) => o.accepted === 60 && o.failed === 0)).toBe(true);
    expect(await db.trackedEvent.count({ where: { businessId: flooder.businessId } })).toBe(180);
    expect(batchAdmission()).toEqual({ running: 0, queued: 0 });
  });
});
