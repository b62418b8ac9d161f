"use client";
// Referrals and their statistics: status funnel, conversion, top referrers, why referrals were
// rejected, and referrals/conversions per day.
import { useState } from "react";
import { useEnvironment } from "../environment";
import { reasonText } from "../reasons";
import { Icon } from "../icons";
import { trpc } from "../trpc";
import { Badge, Button, Card, DataList, EmptyState, ErrorState, Field, Input, LoadingRows, PageHeader, Stat, Td, Th } from "../ui";
import { ActivityChart } from "./activity-chart";
import { ReferralList } from "./people";
import { Eth, useAmountText } from "../money";

const pct = (x: number) => `${(x * 100).toFixed(x > 0 && x < 0.1 ? 1 : 0)}%`;


export function ReferralsPage() {
  const formatEth = useAmountText();
  const { env } = useEnvironment();
  const stats = trpc.referrals.stats.useQuery({ environment: env });
  const [campaignDraft, setCampaignDraft] = useState("");
  const [campaign, setCampaign] = useState("");
  const analytics = trpc.analytics.get.useQuery({ environment: env, ...(campaign ? { campaign } : {}) });
  const s = stats.data;
  const rejected = Object.entries(s?.rejectedReferralsByReason ?? {});
  return (
    <>
      <PageHeader title="Referrals" description="Who brings you customers, and how many of them convert." />
      {stats.error ? (
        <ErrorState error={stats.error} onRetry={() => stats.refetch()} />
      ) : (
        <div className="space-y-6">
          <dl className="grid grid-cols-2 gap-4 lg:grid-cols-4">
            <Stat label="Referrals" value={<span data-testid="referrals-total">{s?.total ?? 0}</span>} loading={!s} />
            <Stat label="Conversion rate" value={s ? pct(s.conversionRate) : ""} loading={!s} hint="Qualified or rewarded / all" />
            <Stat label="Flagged for review" value={s?.byStatus.FLAGGED ?? 0} loading={!s} />
            <Stat
              label="ETH earned"
              value={<span data-testid="eth-earned">{s ? <Eth value={s.ethEarned} /> : ""}</span>}
              loading={!s}
              hint={s ? (s.ethReversed === "0" ? "All rewards, paid out or not; equals the participants' earned" : `${formatEth(s.ethRewarded)} rewarded − ${formatEth(s.ethReversed)} reversed; equals the participants' earned`) : undefined}
            />
          </dl>
          <Card title="Funnel">
            {!s ? (
              <LoadingRows rows={1} label="Loading funnel" />
            ) : (
              <div className="flex flex-wrap gap-3">
                {(["PENDING", "QUALIFIED", "REWARDED", "FLAGGED", "REJECTED"] as const).map((k) => (
                  <div key={k} className="flex min-w-28 flex-1 items-center justify-between gap-3 rounded-lg bg-slate-50 px-4 py-3 ring-1 ring-slate-200" data-testid={`funnel-${k}`}>
                    <Badge>{k}</Badge>
                    <span className="text-lg font-semibold text-slate-900">{s.byStatus[k]}</span>
                  </div>
                ))}
              </div>
            )}
          </Card>
          <Card
            title="Referrals per day"
            description={campaign ? `Last 30 days (UTC), campaign “${campaign}”` : "Last 30 days (UTC), all campaigns"}
            actions={
              <form
                className="flex items-end gap-2"
                aria-label="Filter by campaign"
                onSubmit={(e) => {
                  e.preventDefault();
                  setCampaign(campaignDraft.trim());
                }}
              >
                <Field label="Campaign">{(p) => <Input {...p} name="campaign" value={campaignDraft} onChange={(e) => setCampaignDraft(e.target.value)} placeholder="All" maxLength={100} className="w-36" />}</Field>
                <Button type="submit" variant="secondary" size="sm" className="mb-0.5">
                  Show
                </Button>
              </form>
            }
          >
            {analytics.isLoading ? <LoadingRows rows={4} label="Loading chart" /> : analytics.error ? <ErrorState error={analytics.error} onRetry={() => analytics.refetch()} /> : <ActivityChart days={analytics.data!.days} series="referrals" />}
          </Card>
          <div className="grid gap-6 lg:grid-cols-3">
            <Card title="Top referrers" className="lg:col-span-2" bodyClassName="p-5 pt-0">
              <DataList
                query={stats}
                isEmpty={!s?.topReferrers.length}
                itemsLabel="referrers"
                empty={<EmptyState icon={<Icon name="users" className="h-8 w-8" />} title="No referrers yet">Apply a referral code through /sdk/referrals/apply and your referrers are ranked here.</EmptyState>}
                label="Top referrers"
                head={
                  <>
                    <Th>Referrer</Th>
                    <Th className="text-right">Referrals</Th>
                    <Th className="text-right">Converted</Th>
                    <Th className="text-right">Earned</Th>
                  </>
                }
              >
                {s?.topReferrers.map((r) => (
                  <tr key={r.participantId} data-testid="top-referrer-row">
                    <Td>
                      <div className="font-medium text-slate-900">{r.name ?? r.email ?? r.referralCode}</div>
                      <div className="font-mono text-xs text-slate-500">{r.referralCode}</div>
                    </Td>
                    <Td className="text-right">{r.referrals}</Td>
                    <Td className="text-right">{r.conversions}</Td>
                    <Td className="text-right whitespace-nowrap"><span data-testid="top-referrer-earned"><Eth value={r.ethEarned} /></span></Td>
                  </tr>
                ))}
              </DataList>
            </Card>
            <Card title="Rejected, by reason">
              {!s ? (
                <LoadingRows rows={2} label="Loading rejections" />
              ) : rejected.length === 0 ? (
                <p className="text-sm text-slate-500">No referral was rejected by your rules.</p>
              ) : (
                <ul className="space-y-2 text-sm">
                  {rejected.map(([reason, n]) => (
                    <li key={reason} className="flex justify-between gap-2">
                      <span className="text-xs">{reasonText(reason)}</span>
                      <span className="font-semibold">{n}</span>
                    </li>
                  ))}
                </ul>
              )}
            </Card>
          </div>
          {/* The statistics first, then the list they sum up. */}
          <ReferralList />
        </div>
      )}
    </>
  );
}
