"use client";
// Revenue attributed to referrals (per currency) and commissions granted (count, ETH, per rule),
// from GET /business/analytics/commissions: the business's last 30 days on the Overview, all
// time for one referrer on their page.
import Link from "next/link";
import { moneyText } from "../commission-words";
import { useEnvironment } from "../environment";
import { trpc } from "../trpc";
import { Card, ErrorState, LoadingRows } from "../ui";
import { Eth } from "../money";

export function CommissionAnalyticsCard({ participantId }: { participantId?: string }) {
  const { env } = useEnvironment();
  const q = trpc.analytics.commissions.useQuery(participantId ? { participantId } : { environment: env });
  const d = q.data;
  const forReferrer = !!participantId;
  return (
    <Card
      title={forReferrer ? "Revenue and commissions" : "Revenue and commissions · last 30 days"}
      description={forReferrer ? "What the people they referred spent (tracked event amounts), and the commissions they earned, since the start." : "What referred customers spent (tracked event amounts, per currency) and the commissions rules granted for it."}
    >
      {q.isLoading ? (
        <LoadingRows rows={2} label="Loading revenue and commissions" />
      ) : q.error ? (
        <ErrorState error={q.error} onRetry={() => q.refetch()} />
      ) : (
        d && (
          <div className="grid gap-6 sm:grid-cols-2" data-testid={forReferrer ? "referrer-commissions" : "commission-analytics"}>
            <div className="min-w-0">
              <h3 className="text-sm font-semibold text-slate-800">{forReferrer ? "Revenue from their referrals" : "Revenue attributed to referrals"}</h3>
              {d.revenue.length === 0 ? (
                <p className="mt-1 text-sm text-slate-500">No event with an amount from a referred customer{forReferrer ? "" : " in these 30 days"}.</p>
              ) : (
                <ul className="mt-1 divide-y divide-slate-100 text-sm" aria-label="Revenue per currency">
                  {d.revenue.map((r) => (
                    <li key={r.currency} className="flex flex-wrap justify-between gap-2 py-1.5" data-testid="revenue-row">
                      <span className="font-medium [overflow-wrap:anywhere]">{moneyText(r.amount, r.currency)}</span>
                      <span className="text-xs text-slate-500">{r.events} event{r.events === 1 ? "" : "s"}</span>
                    </li>
                  ))}
                </ul>
              )}
            </div>
            <div className="min-w-0">
              <h3 className="text-sm font-semibold text-slate-800">{forReferrer ? "Commissions earned" : "Commissions granted"}</h3>
              <p className="mt-1 text-sm">
                <strong className="[overflow-wrap:anywhere]" data-testid="commissions-eth"><Eth value={d.commissions.eth} /></strong>{" "}
                <span className="text-slate-600" data-testid="commissions-count">in {d.commissions.count} reward{d.commissions.count === 1 ? "" : "s"}</span>
              </p>
              {d.commissions.byRule.length > 0 && (
                <ul className="mt-1 divide-y divide-slate-100 text-sm" aria-label="Commissions per rule">
                  {d.commissions.byRule.map((r) => (
                    <li key={r.ruleId} className="flex flex-wrap justify-between gap-2 py-1.5">
                      <span>{r.name ?? "Deleted rule"} <span className="text-xs text-slate-500">({r.count})</span></span>
                      <span className="text-xs [overflow-wrap:anywhere]"><Eth value={r.eth} /></span>
                    </li>
                  ))}
                </ul>
              )}
              {!forReferrer && (
                <p className="mt-2 text-xs text-slate-500">
                  Rules are set on <Link href="/dashboard/commission-rules" className="font-medium text-indigo-700 hover:underline">Commission rules</Link>.
                </p>
              )}
            </div>
          </div>
        )
      )}
    </Card>
  );
}
