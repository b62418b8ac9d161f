"use client";
// "Export CSV": a plain download link to /api/export/{kind} carrying the list's current filters.
import { Icon } from "../icons";

export function ExportLink({ kind, query }: { kind: "referrals" | "rewards" | "events" | "payouts" | "ledger"; query: Record<string, string | number | undefined> }) {
  const qs = new URLSearchParams(Object.entries(query).filter((e): e is [string, string | number] => e[1] !== undefined && e[1] !== "").map(([k, v]) => [k, String(v)]));
  return (
    <a
      href={`/api/export/${kind}?${qs}`}
      download
      data-testid={`export-${kind}`}
      className="inline-flex items-center gap-1.5 rounded-lg bg-white px-2.5 py-1.5 text-xs font-medium whitespace-nowrap text-slate-800 shadow-sm ring-1 ring-slate-300 ring-inset hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-indigo-600"
    >
      <Icon name="download" className="h-4 w-4" /> Export CSV
    </a>
  );
}
