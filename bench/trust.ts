// npm run bench:trust [-- --entries 20000]: ledger verification throughput (entries chained by
// the database trigger, then GET /business/ledger/verify's function) on the database the app
// uses (PGlite by default, PostgreSQL with DATABASE_URL). Figures go to bench/RESULTS.md.
import { randomUUID } from "node:crypto";
import { db, dbReady } from "../server/db/client";
import { verifyStoredLedger } from "../server/domain/ledger/verify";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};

async function main() {
  const entries = arg("entries", 20_000);
  await dbReady();
  const businessId = `bench-trust-${randomUUID()}`;
  await db.business.create({ data: { id: businessId, name: "Trust bench", ownerId: businessId } });
  let t = performance.now();
  const chunk = 5_000;
  for (let done = 0; done < entries; done += chunk) {
    const n = Math.min(chunk, entries - done);
    await db.$executeRawUnsafe(
      `INSERT INTO "LedgerEntry" (id, "businessId", environment, kind, "amountWei", memo)
       SELECT 'bt-' || $2::int + g, $1, 'TEST', 'FUNDING', 1000 + g, 'bench' FROM generate_series(1, $3::int) g`,
      businessId,
      done,
      n,
    );
  }
  const writeMs = performance.now() - t;
  t = performance.now();
  const verdict = await verifyStoredLedger(businessId, "TEST");
  const verifyMs = performance.now() - t;
  console.log(JSON.stringify({ entries, writeMs: Math.round(writeMs), writePerEntryUs: Math.round((writeMs * 1000) / entries), verifyMs: Math.round(verifyMs), projected1MVerifyS: Number(((verifyMs / entries) * 1e6 / 1000).toFixed(1)), ok: verdict.ok }));
  await db.business.delete({ where: { id: businessId } });
  process.exit(0);
}

void main();
