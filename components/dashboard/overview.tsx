"use client";
// Overview: key figures for the selected environment and the way in for new owners.
import { useEnvironment } from "../environment";
import { useMe } from "../shell";
import { trpc } from "../trpc";
import { Card, LinkButton, Notice, PageHeader, Stat } from "../ui";

export function OverviewPage() {
  const { env } = useEnvironment();
  const { business } = useMe();
  const keys = trpc.apiKeys.list.useQuery({});
  const members = trpc.members.list.useQuery({});
  const envKeys = (keys.data?.data ?? []).filter((k) => k.environment === env);
  const activeKeys = envKeys.filter((k) => k.status === "ACTIVE");
  const isNew = !keys.isLoading && (keys.data?.data.length ?? 0) === 0;

  return (
    <>
      <PageHeader title="Overview" description={`${business.name} · ${env === "TEST" ? "test" : "live"} environment`} />
      {isNew && (
        <div className="mb-6">
          <Notice tone="info" title="Set up your integration">
            <p>Create a test key and send your first event in a couple of minutes.</p>
            <div className="mt-3">
              <LinkButton href="/dashboard/get-started" size="sm">
                Get started
              </LinkButton>
            </div>
          </Notice>
        </div>
      )}
      <dl className="grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-4">
        <Stat label="Active API keys" value={activeKeys.length} loading={keys.isLoading} hint={`${envKeys.length - activeKeys.length} revoked`} />
        <Stat label="Team members" value={members.data?.data.length ?? 0} loading={members.isLoading} />
      </dl>
      <Card className="mt-6" title="Recent activity">
        <p className="text-sm text-slate-500">Events, referrals and rewards appear here once your integration sends data.</p>
      </Card>
    </>
  );
}
