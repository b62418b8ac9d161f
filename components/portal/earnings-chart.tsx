"use client";
// The portal's earnings over time: the amount earned (in the program's asset) (rewarded less reversed, the totals rule) per UTC
// month as bars, and the running total as a line. Exact amounts stay in the tables and the JSON API.
import { useAmountText, useAsset } from "../money";
import { Bar, CartesianGrid, ComposedChart, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { PortalPageData } from "@/server/portal/page-data";

type Month = PortalPageData["me"]["earningsByMonth"][number];

const monthLabel = (m: string) => new Date(`${m}-01T00:00:00Z`).toLocaleDateString("en-US", { month: "short", year: "numeric", timeZone: "UTC" });

export function EarningsChart({ months }: { months: Month[] }) {
  const formatEth = useAmountText();
  const { symbol } = useAsset();
  if (months.length === 0) return <p className="text-sm text-slate-600">Your earnings appear here month by month once you earn a reward.</p>;
  // Charts need numbers; precision beyond the display is irrelevant here.
  const earned = months.map((m) => Number(m.earnedEth));
  const data = months.map((m, i) => ({ month: monthLabel(m.month), earned: earned[i], total: earned.slice(0, i + 1).reduce((a, x) => a + x, 0) }));
  const summary = months.map((m) => `${monthLabel(m.month)}: ${formatEth(m.earnedEth)}`).join("; ");
  return (
    <figure className="space-y-2" data-testid="earnings-chart">
      <div className="h-56 w-full" role="img" aria-label={`${symbol} earned per month. ${summary}`}>
        <ResponsiveContainer width="100%" height="100%">
          <ComposedChart data={data} margin={{ top: 8, right: 8, bottom: 4, left: 0 }}>
            <CartesianGrid strokeDasharray="3 3" stroke="#e2e8f0" vertical={false} />
            <XAxis dataKey="month" tick={{ fontSize: 11, fill: "#475569" }} tickLine={false} axisLine={{ stroke: "#cbd5e1" }} minTickGap={12} />
            <YAxis tick={{ fontSize: 11, fill: "#475569" }} tickLine={false} axisLine={false} width={52} tickFormatter={(v: number) => String(Number(v.toPrecision(3)))} />
            <Tooltip contentStyle={{ borderRadius: 8, border: "1px solid #e2e8f0", fontSize: 12 }} formatter={(v, name) => [`${Number(Number(v).toPrecision(4))} ${symbol}`, name]} />
            <Bar dataKey="earned" name="Earned that month" fill="#6366f1" radius={[4, 4, 0, 0]} maxBarSize={32} isAnimationActive={false} />
            <Line type="linear" dataKey="total" name="Earned in all" stroke="#10b981" strokeWidth={2} dot={{ r: 2 }} isAnimationActive={false} />
          </ComposedChart>
        </ResponsiveContainer>
      </div>
      <figcaption className="text-xs text-slate-600">
        <span className="mr-3 inline-flex items-center gap-1"><span className="inline-block size-2 rounded-sm bg-indigo-500" aria-hidden="true" />Earned that month</span>
        <span className="inline-flex items-center gap-1"><span className="inline-block size-2 rounded-full bg-emerald-500" aria-hidden="true" />Earned in all</span>
        <span className="block">Earned: rewards granted less what refunds and reversals took back (UTC months).</span>
      </figcaption>
    </figure>
  );
}
