// npm run ledger:verify -- <export.jsonl> [--head <hash>]
// Checks a ledger export (GET /api/export/ledger?environment=…&format=jsonl) offline: recomputes every
// entry's hash and compares the last one with the head in the export's first line. With --head
// (say, the ledgerHead of a published proof of liabilities) it also checks that this head is an
// entry of the chain, i.e. that the books were extended since, not rewritten. Exit code 0: intact.
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { verifyLedger, type LedgerExportEntry, type LedgerExportHeader } from "../server/domain/ledger/export-format";

async function main() {
  const args = process.argv.slice(2);
  const headAt = args.indexOf("--head");
  const publishedHead = headAt >= 0 ? args.splice(headAt, 2)[1] : undefined;
  const file = args[0];
  const lines = createInterface({ input: file && file !== "-" ? createReadStream(file) : process.stdin, crlfDelay: Infinity })[Symbol.asyncIterator]();
  const first = await lines.next();
  const firstRow = first.done ? null : (JSON.parse(first.value) as LedgerExportHeader | LedgerExportEntry);
  const header = firstRow && "ledgerExport" in firstRow ? firstRow : null;
  let publishedSeen = false;
  async function* entries(): AsyncGenerator<LedgerExportEntry> {
    if (firstRow && !header) yield firstRow as LedgerExportEntry;
    for (let next = await lines.next(); !next.done; next = await lines.next()) {
      if (!next.value.trim()) continue;
      const e = JSON.parse(next.value) as LedgerExportEntry;
      if (e.hash === publishedHead) publishedSeen = true;
      yield e;
    }
  }
  const verdict = await verifyLedger(header, entries());
  const result = publishedHead === undefined ? verdict : { ...verdict, ok: verdict.ok && publishedSeen, publishedHeadFound: publishedSeen };
  console.log(JSON.stringify(result, null, 2));
  process.exit(result.ok ? 0 : 1);
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(2);
});
