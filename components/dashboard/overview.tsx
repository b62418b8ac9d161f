"use client";
// Overview: balance per environment, key figures, events and ETH rewarded per day, recent events.
import Link from "next/link";
import { useEnvironment } from "../environment";
import { useMe } from "../shell";
import { trpc } from "../trpc";
import { Button, Card, DataList, EmptyState, ErrorState, LinkButton, LoadingRows, Notice, PageHeader, Stat } from "../ui";
import { ActivityChart } from "./activity-chart";
import { BalanceCards } from "./balance";
import { CommissionAnalyticsCard } from "./commission-analytics";
import { EventsTable } from "./events";
import { FunnelCard } from "./funnel";
import { Eth, useAsset } from "../money";

export function OverviewPage() {
  const { symbol } = useAsset();
  const { env } = useEnvironment();
  const { business } = useMe();
  const keys = trpc.apiKeys.list.useQuery({});
  const analytics = trpc.analytics.get.useQuery({ environment: env });
  const recent = trpc.events.list.useQuery({ environment: env, limit: 6 });
  const alerts = trpc.alerts.list.useQuery({ environment: env, unacknowledged: "true", limit: 20 });
  const pool = trpc.funding.balance.useQuery({ environment: env });
  const utils = trpc.useUtils();
  const ack = trpc.alerts.acknowledge.useMutation({ onSuccess: () => utils.alerts.list.invalidate() });
  // One banner per kind (the newest), and a low-pool banner only while the pool is still low:
  // older or stale alerts of the same kind are dismissed with it.
  const open = alerts.data?.data ?? [];
  // The list is newest first: reversed into the map, the newest of each kind is the one kept.
  const banners = [...new Map([...open].reverse().map((a) => [a.kind, a] as const)).values()]
    .filter((a) => a.kind !== "LOW_POOL" || pool.data?.belowLowPoolAlert === true);
  const newestFirst = (kind: string) => open.filter((a) => a.kind === kind);
  const dismiss = async (kind: string) => {
    for (const a of newestFirst(kind)) await ack.mutateAsync({ alertId: a.alertId });
  };
  const t = analytics.data?.totals;
  const isNew = !keys.isLoading && (keys.data?.data.length ?? 0) === 0;

  return (
    <>
      <PageHeader title="Overview" description={`${business.name} · ${env === "TEST" ? "test" : "live"} environment · last 30 days`} />
      <div className="space-y-6">
        {isNew && (
          <Notice tone="info" title="Set up your integration">
            <p>Create a test key and send your first event in a couple of minutes.</p>
            <div className="mt-3">
              <LinkButton href="/dashboard/get-started" size="sm">
                Get started
              </LinkButton>
            </div>
          </Notice>
        )}
        {banners.map((a) => (
          <Notice key={a.alertId} tone="warning" title={a.kind === "LOW_POOL" ? "Low pool balance" : "Refill requested"}>
            <div className="flex flex-wrap items-center justify-between gap-2">
              <span>
                {a.message}{" "}
                <Link className="font-medium underline" href="/dashboard/balance">
                  Fund the pool
                </Link>
              </span>
              <Button size="sm" variant="secondary" loading={ack.isPending && newestFirst(a.kind).some((o) => o.alertId === ack.variables?.alertId)} onClick={() => void dismiss(a.kind)}>
                Dismiss
              </Button>
            </div>
          </Notice>
        ))}
        <section aria-label="Balances">
          <BalanceCards />
        </section>
        <dl className="grid grid-cols-2 gap-4 lg:grid-cols-4">
          <Stat label="Events" value={<span data-testid="kpi-events">{t?.events ?? 0}</span>} loading={analytics.isLoading} />
          <Stat label="Referrals" value={t?.referrals ?? 0} loading={analytics.isLoading} />
          <Stat label="Conversion rate" value={t ? `${Math.round(t.conversionRate * 100)}%` : ""} loading={analytics.isLoading} hint={t ? `${t.conversions} converted` : undefined} />
          <Stat label={`${symbol} earned`} value={<span data-testid="kpi-eth-earned">{t ? <Eth value={t.ethEarned} /> : ""}</span>} loading={analytics.isLoading} hint={t ? `${t.rewardsPaid} reward${t.rewardsPaid === 1 ? "" : "s"} in 30 days, paid out or not, less reversals` : undefined} />
        </dl>
        <Card title={`Events and ${symbol} earned per day`}>
          {analytics.isLoading ? <LoadingRows rows={4} label="Loading chart" /> : analytics.error ? <ErrorState error={analytics.error} onRetry={() => analytics.refetch()} /> : <ActivityChart days={analytics.data!.days} />}
        </Card>
        <CommissionAnalyticsCard />
        <FunnelCard />
        <Card title="Recent events" actions={<LinkButton href="/dashboard/events" variant="ghost" size="sm">View all</LinkButton>} bodyClassName="p-5 pt-0">
          <DataList query={recent} isEmpty={!recent.data?.data.length} itemsLabel="events" skeleton={3} empty={<EmptyState title="No events yet">Events sent to /track with a {env.toLowerCase()} key show up here.</EmptyState>}>
            <EventsTable events={recent.data?.data ?? []} compact />
          </DataList>
        </Card>
      </div>
    </>
  );
}
