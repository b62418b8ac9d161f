"use client";
// The funnel from link clicks to paid-out ETH (GET /business/analytics/funnel): a chart of the
// steps with conversion rates, and a table per referrer or campaign.
import { useState } from "react";
import { Bar, BarChart, CartesianGrid, LabelList, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { useEnvironment } from "../environment";
import { reasonText } from "../reasons";
import { trpc, type RouterOutputs } from "../trpc";
import { Card, DataList, EmptyState, ErrorState, LoadingRows, Select, Table, Td, Th } from "../ui";
import { Eth, useAsset } from "../money";

type Row = RouterOutputs["analytics"]["funnel"]["data"][number];

// A step that counts more than the one before (referrals applied without a click outnumber the
// visitors) is no conversion: no rate is shown rather than one over 100 %.
const rate = (n: number, of: number) => (of > 0 && n <= of ? `${Math.round((n / of) * 100)}%` : "—");

function FunnelChart({ rows }: { rows: Row[] }) {
  const sum = (k: "clicks" | "uniqueClicks" | "referrals" | "qualified" | "rewarded") => rows.reduce((n, r) => n + r[k], 0);
  const steps = [
    { step: "Clicks", n: sum("clicks") },
    { step: "Visitors", n: sum("uniqueClicks") },
    { step: "Referrals", n: sum("referrals") },
    { step: "Qualified", n: sum("qualified") },
    { step: "Rewarded", n: sum("rewarded") },
  ];
  const data = steps.map((s, i) => ({ ...s, label: i === 0 || rate(s.n, steps[i - 1].n) === "—" ? String(s.n) : `${s.n} · ${rate(s.n, steps[i - 1].n)}` }));
  return (
    <div className="h-64 w-full" role="img" aria-label={`Funnel: ${steps.map((s) => `${s.step} ${s.n}`).join(", ")}`}>
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={data} layout="vertical" margin={{ top: 4, right: 72, bottom: 4, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="#e2e8f0" horizontal={false} />
          <XAxis type="number" allowDecimals={false} tick={{ fontSize: 11, fill: "#475569" }} tickLine={false} axisLine={{ stroke: "#cbd5e1" }} />
          <YAxis type="category" dataKey="step" width={72} tick={{ fontSize: 12, fill: "#334155" }} tickLine={false} axisLine={false} />
          <Tooltip contentStyle={{ borderRadius: 8, border: "1px solid #e2e8f0", fontSize: 12 }} />
          <Bar dataKey="n" name="Count" fill="#6366f1" radius={[0, 4, 4, 0]} maxBarSize={28} isAnimationActive={false}>
            <LabelList dataKey="label" position="right" style={{ fontSize: 11, fill: "#334155" }} />
          </Bar>
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}

export function FunnelCard() {
  const { env } = useEnvironment();
  const { symbol } = useAsset();
  const [groupBy, setGroupBy] = useState<"referrer" | "campaign">("referrer");
  const q = trpc.analytics.funnel.useQuery({ environment: env, groupBy });
  const rows = q.data?.data ?? [];
  const signals = Object.entries(q.data?.signals ?? {}).filter(([, n]) => n > 0);
  return (
    <Card
      title="From link clicks to payouts"
      description="Last 30 days: clicks on referral links, the referrals they brought, and what those earned."
      bodyClassName="p-5 pt-0"
      actions={
        <label className="flex items-center gap-2 text-sm text-slate-600">
          <span>Per</span>
          <Select aria-label="Group the table by" value={groupBy} onChange={(e) => setGroupBy(e.target.value as "referrer" | "campaign")}>
            <option value="referrer">referrer</option>
            <option value="campaign">campaign</option>
          </Select>
        </label>
      }
    >
      <DataList query={q} isEmpty={rows.length === 0} itemsLabel="funnel" skeleton={4} empty={<EmptyState title="No clicks or referrals yet">Set a link destination on the Configuration page and share {"{base_url}"}/r/CODE links.</EmptyState>}>
        <div className="space-y-4 pt-5" data-testid="funnel">
          <FunnelChart rows={rows} />
          <Table label={`Funnel per ${groupBy}`}>
            <thead>
              <tr>
                <Th>{groupBy === "referrer" ? "Referrer" : "Campaign"}</Th>
                <Th className="text-right">Clicks</Th>
                <Th className="text-right">Visitors</Th>
                <Th className="text-right">Referrals</Th>
                <Th className="text-right">Click → referral</Th>
                <Th className="text-right">Qualified</Th>
                <Th className="text-right">Rewarded</Th>
                <Th className="text-right">{symbol} earned</Th>
                <Th className="text-right">{symbol} paid out</Th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {rows.map((r) => (
                <tr key={r.key ?? "—"}>
                  <Td className="text-xs">
                    {groupBy === "referrer" ? (
                      <>
                        <span className="font-medium text-slate-900">{r.name ?? r.key}</span>
                        {r.name && <span className="block font-mono text-slate-500">{r.key}</span>}
                      </>
                    ) : (
                      <span className="font-mono">{r.key ?? "(none)"}</span>
                    )}
                  </Td>
                  <Td className="text-right">{r.clicks}</Td>
                  <Td className="text-right">{r.uniqueClicks}</Td>
                  <Td className="text-right">{r.referrals}</Td>
                  <Td className="text-right">{rate(r.referrals, r.uniqueClicks)}</Td>
                  <Td className="text-right">{r.qualified}</Td>
                  <Td className="text-right">{r.rewarded}</Td>
                  <Td className="text-right text-xs whitespace-nowrap"><Eth value={r.rewardsEth} /></Td>
                  <Td className="text-right text-xs whitespace-nowrap"><Eth value={r.paidOutEth} /></Td>
                </tr>
              ))}
            </tbody>
          </Table>
          {q.data?.truncated && <p className="text-sm text-slate-600">Showing the {rows.length} groups with the most clicks; the others are left out.</p>}
          {signals.length > 0 && (
            <p className="text-sm text-slate-600">
              Held or refused by fraud signals: {signals.map(([s, n]) => `${reasonText(s)} (${n})`).join("; ")}.
            </p>
          )}
        </div>
      </DataList>
    </Card>
  );
}

/** Counted clicks on one participant's link (staff participant page). */
export function ParticipantClicks({ participantId }: { participantId: string }) {
  const q = trpc.participants.clicks.useQuery({ participantId });
  if (q.isLoading) return <LoadingRows rows={1} label="Loading clicks" />;
  if (q.error) return <ErrorState error={q.error} onRetry={() => q.refetch()} />;
  const c = q.data!;
  const recent = c.days.reduce((n, d) => n + d.clicks, 0);
  return (
    <dl className="grid gap-4 sm:grid-cols-3" data-testid="participant-clicks">
      <div>
        <dt className="text-xs font-medium text-slate-500">Link clicks</dt>
        <dd className="text-lg font-semibold text-slate-900">{c.clicks}</dd>
      </div>
      <div>
        <dt className="text-xs font-medium text-slate-500">Visitors</dt>
        <dd className="text-lg font-semibold text-slate-900">{c.uniqueClicks}</dd>
      </div>
      <div>
        <dt className="text-xs font-medium text-slate-500">Clicks, last 30 days</dt>
        <dd className="text-lg font-semibold text-slate-900">{recent}</dd>
      </div>
    </dl>
  );
}
