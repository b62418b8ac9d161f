"use client";
// Audit log (owner): every change made through the dashboard or /business, newest first, with
// filters, the before/after of each change, and a CSV download of the filtered log.
import { useState, type FormEvent } from "react";
import { formatDateTime } from "../format";
import { trpc } from "../trpc";
import { Button, Card, Field, Input, ListBody, LoadMore, PageHeader, Select, Table, Td, Th } from "../ui";

interface Filters {
  environment?: "TEST" | "LIVE";
  actor?: string;
  action?: string;
  from?: string;
  to?: string;
}

function Json({ value }: { value: unknown }) {
  if (value === null || value === undefined) return <span className="text-slate-400">—</span>;
  return <pre className="max-h-40 max-w-xs overflow-auto text-xs whitespace-pre-wrap">{JSON.stringify(value, null, 1)}</pre>;
}

export function AuditLogPage() {
  const [filters, setFilters] = useState<Filters>({});
  const list = trpc.auditLog.list.useInfiniteQuery({ ...filters, limit: 50 }, { getNextPageParam: (p) => p.nextCursor ?? undefined, retry: false });
  const rows = list.data?.pages.flatMap((p) => p.data) ?? [];
  const qs = new URLSearchParams(Object.entries(filters).filter((e): e is [string, string] => !!e[1]));

  function apply(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const text = (k: string) => { const v = f.get(k); return typeof v === "string" && v.trim() ? v.trim() : undefined; };
    const env = text("environment");
    setFilters({ environment: env === "TEST" || env === "LIVE" ? env : undefined, actor: text("actor"), action: text("action"), from: text("from"), to: text("to") });
  }

  return (
    <>
      <PageHeader
        title="Audit log"
        description="Every change made by your team, who made it, and what it changed. Entries cannot be edited or removed."
        actions={
          <a href={`/api/export/audit-log?${qs}`} download data-testid="export-audit-log" className="rounded-lg bg-white px-2.5 py-1.5 text-xs font-medium text-slate-800 shadow-sm ring-1 ring-slate-300 ring-inset hover:bg-slate-50">
            Export CSV
          </a>
        }
      />
      <Card>
        <form onSubmit={apply} className="grid gap-3 sm:grid-cols-3 lg:grid-cols-6" aria-label="Filter the audit log">
          <Field label="Environment">
            {(p) => (
              <Select {...p} name="environment" defaultValue="">
                <option value="">All</option>
                <option value="TEST">Test</option>
                <option value="LIVE">Live</option>
              </Select>
            )}
          </Field>
          <Field label="Who (email or user id)">{(p) => <Input {...p} name="actor" maxLength={320} />}</Field>
          <Field label="Action">{(p) => <Input {...p} name="action" maxLength={100} placeholder="webhooks." />}</Field>
          <Field label="From">{(p) => <Input {...p} name="from" type="date" />}</Field>
          <Field label="To">{(p) => <Input {...p} name="to" type="date" />}</Field>
          <div className="flex items-end">
            <Button type="submit" variant="secondary">
              Apply
            </Button>
          </div>
        </form>
      </Card>
      <Card className="mt-4">
        <ListBody loading={list.isLoading} error={list.error} onRetry={() => void list.refetch()} isEmpty={rows.length === 0} empty={<p className="p-4 text-sm text-slate-600">No changes match these filters.</p>} label="audit log">
          <Table label="Audit log">
            <thead>
              <tr>
                <Th>When</Th>
                <Th>Who</Th>
                <Th>Action</Th>
                <Th>Target</Th>
                <Th>Before</Th>
                <Th>After</Th>
              </tr>
            </thead>
            <tbody>
              {rows.map((a) => (
                <tr key={a.auditId}>
                  <Td>{formatDateTime(a.at)}</Td>
                  <Td>{a.actor.email ?? a.actor.userId ?? "—"}</Td>
                  <Td>
                    <code className="text-xs">{a.action}</code>
                    {a.environment ? <span className="ml-1 text-xs text-slate-500">{a.environment}</span> : null}
                  </Td>
                  <Td>
                    <code className="text-xs break-all">{a.target ?? "—"}</code>
                  </Td>
                  <Td>
                    <Json value={a.before} />
                  </Td>
                  <Td>
                    <Json value={a.after} />
                  </Td>
                </tr>
              ))}
            </tbody>
          </Table>
          <LoadMore hasMore={!!list.hasNextPage} loading={list.isFetchingNextPage} onClick={() => void list.fetchNextPage()} />
        </ListBody>
      </Card>
    </>
  );
}
