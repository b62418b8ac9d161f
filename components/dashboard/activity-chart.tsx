"use client";
// Events (bars) and the amount earned (line, in the environment's asset) per UTC day, from the analytics procedure.
import { Bar, CartesianGrid, ComposedChart, Legend, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { RouterOutputs } from "../trpc";
import { useAsset } from "../money";

type Day = RouterOutputs["analytics"]["get"]["days"][number];

export function ActivityChart({ days, series = "events" }: { days: Day[]; series?: "events" | "referrals" }) {
  // Charts need numbers; precision beyond the display is irrelevant here (tables show exact strings).
  const { symbol } = useAsset();
  const earned = `${symbol} earned`;
  const data = days.map((d) => ({ date: d.date.slice(5), events: d.events, referrals: d.referrals, conversions: d.conversions, eth: Number(d.ethEarned) }));
  return (
    <div className="h-72 w-full" role="img" aria-label={`${series === "events" ? "Events" : "Referrals and conversions"} and ${earned} per day`}>
      <ResponsiveContainer width="100%" height="100%">
        <ComposedChart data={data} margin={{ top: 8, right: 12, bottom: 16, left: 4 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="#e2e8f0" vertical={false} />
          <XAxis dataKey="date" tick={{ fontSize: 11, fill: "#475569" }} tickLine={false} axisLine={{ stroke: "#cbd5e1" }} minTickGap={16} label={{ value: "Day (UTC, month-day)", position: "insideBottom", offset: -10, fontSize: 11, fill: "#475569" }} />
          <YAxis yAxisId="count" allowDecimals={false} tick={{ fontSize: 11, fill: "#475569" }} tickLine={false} axisLine={false} label={{ value: series === "events" ? "Events per day" : "Referrals per day", angle: -90, position: "insideLeft", fontSize: 11, fill: "#475569", style: { textAnchor: "middle" } }} />
          <YAxis yAxisId="eth" orientation="right" tick={{ fontSize: 11, fill: "#475569" }} tickLine={false} axisLine={false} label={{ value: `${earned} per day`, angle: 90, position: "insideRight", fontSize: 11, fill: "#475569", style: { textAnchor: "middle" } }} />
          <Tooltip contentStyle={{ borderRadius: 8, border: "1px solid #e2e8f0", fontSize: 12 }} formatter={(v, name) => (name === earned ? [`${String(v)} ${symbol}`, name] : [v, name])} />
          <Legend verticalAlign="top" wrapperStyle={{ fontSize: 12 }} />
          {series === "events" ? (
            <Bar yAxisId="count" dataKey="events" name="Events" fill="#6366f1" radius={[4, 4, 0, 0]} maxBarSize={28} isAnimationActive={false} />
          ) : (
            <>
              <Bar yAxisId="count" dataKey="referrals" name="Referrals" fill="#6366f1" radius={[4, 4, 0, 0]} maxBarSize={20} isAnimationActive={false} />
              <Bar yAxisId="count" dataKey="conversions" name="Conversions" fill="#a5b4fc" radius={[4, 4, 0, 0]} maxBarSize={20} isAnimationActive={false} />
            </>
          )}
          <Line yAxisId="eth" type="linear" dataKey="eth" name={earned} stroke="#10b981" strokeWidth={2} dot={false} activeDot={{ r: 4 }} isAnimationActive={false} />
        </ComposedChart>
      </ResponsiveContainer>
    </div>
  );
}
