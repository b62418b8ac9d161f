// GET /api/export/{referrals|rewards|events|payouts|ledger|audit-log}?<the list's filters>: the dashboard's CSV downloads.
// Same caller checks as the business procedures (session cookie or bearer session, role
// BUSINESS, membership), same filter schemas as the lists, scoped to the caller's business;
// the body streams page by page, so a large range never sits in memory.
import type { z } from "zod";
import { listEventsInput } from "../domain/events/schemas";
import { eventsCsv, payoutsCsv, referralsCsv, rewardsCsv } from "../domain/exports/csv";
import { listPayoutsInput } from "../domain/payouts/schemas";
import { listBusinessReferralsInput } from "../domain/referrals/browse-schemas";
import { listRewardsInput } from "../domain/rewards/schemas";
import { ledgerExportInput } from "../domain/ledger/schemas";
import { ledgerCsv } from "../domain/exports/ledger-csv";
import { listAuditLogInput } from "../domain/audit/schemas";
import { auditLogCsv } from "../domain/audit/service";
import { ledgerExportLines } from "../domain/ledger/verify";
import { AppError, errorResponse } from "../shared/errors";
import { assertCleanUrl } from "../shared/json-guard";
import { createContext, requireBusinessCaller } from "./init";

const KINDS = {
  referrals: { input: listBusinessReferralsInput.omit({ limit: true, cursor: true }), rows: referralsCsv },
  rewards: { input: listRewardsInput.omit({ limit: true, cursor: true }), rows: rewardsCsv },
  events: { input: listEventsInput.omit({ limit: true, cursor: true }), rows: eventsCsv },
  payouts: { input: listPayoutsInput.omit({ limit: true, cursor: true }), rows: payoutsCsv },
  // The pool's books with a running balance (CSV), or with format=jsonl the ledger's hash chain as
  // JSON Lines, what `npm run ledger:verify` checks offline.
  ledger: {
    input: ledgerExportInput,
    rows: (b: string, q: { environment: "TEST" | "LIVE"; format: "csv" | "jsonl" }) => (q.format === "jsonl" ? ledgerExportLines(b, q.environment) : ledgerCsv(b, q.environment)),
  },
  "audit-log": { input: listAuditLogInput.omit({ limit: true, cursor: true }), rows: auditLogCsv, ownerOnly: true },
} as const;

const FORMATS = {
  csv: { type: "text/csv; charset=utf-8", ext: "csv" },
  jsonl: { type: "application/jsonl; charset=utf-8", ext: "jsonl" },
} as const;

function stream(lines: AsyncGenerator<string>): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  return new ReadableStream({
    async pull(controller) {
      try {
        // A few lines per chunk: fewer, larger writes.
        let chunk = "";
        for (let i = 0; i < 200; i++) {
          const next = await lines.next();
          if (next.done) {
            if (chunk) controller.enqueue(enc.encode(chunk));
            controller.close();
            return;
          }
          chunk += next.value;
        }
        controller.enqueue(enc.encode(chunk));
      } catch (e) {
        console.error("csv export failed mid-stream", e);
        controller.error(e);
      }
    },
    async cancel() {
      await lines.return(undefined);
    },
  });
}

export async function handleCsvExport(req: Request, kind: string): Promise<Response> {
  try {
    if (!Object.hasOwn(KINDS, kind)) throw new AppError("NOT_FOUND", "Exports exist for referrals, rewards, events, payouts and the ledger");
    const { businessId, membership } = await requireBusinessCaller(createContext(req).session);
    const spec = KINDS[kind as keyof typeof KINDS];
    if ("ownerOnly" in spec && membership.role !== "OWNER") throw new AppError("NOT_OWNER", "Only the owner of the business can do this");
    const url = new URL(req.url);
    // The text rules of every input (no NUL or other control characters) before the 200 goes out:
    // the database would refuse such a filter mid-stream.
    assertCleanUrl(url);
    const query = Object.fromEntries(url.searchParams);
    const parsed = spec.input.safeParse(query);
    if (!parsed.success) throw parsed.error;
    const filters = parsed.data as z.infer<typeof spec.input>;
    const lines = (spec.rows as (b: string, q: typeof filters) => AsyncGenerator<string>)(businessId, filters);
    const day = new Date().toISOString().slice(0, 10);
    const format = FORMATS["format" in filters && filters.format === "jsonl" ? "jsonl" : "csv"];
    return new Response(stream(lines), {
      headers: {
        "content-type": format.type,
        "content-disposition": `attachment; filename="${kind}-${(filters.environment ?? "all").toLowerCase()}-${day}.${format.ext}"`,
        "cache-control": "no-store",
        "x-content-type-options": "nosniff",
      },
    });
  } catch (e) {
    return errorResponse(e);
  }
}
