"use client";
// Audit log (owner): every change made through the dashboard, /business or an API key, newest
// first, with filters, what each change did in the API's words (`referralRewardEth: 0.01 → 0.02`),
// the full before/after on demand, and a CSV download of the filtered log.
import { useState, type FormEvent } from "react";
import { formatDateTime } from "../format";
import { combinePages, useCursors } from "../paging";
import { trpc } from "../trpc";
import { Button, Card, DataList, Field, Input, PageHeader, Select, Td, Th } from "../ui";

interface Filters {
  environment?: "TEST" | "LIVE";
  actor?: string;
  action?: string;
  from?: string;
  to?: string;
}

const shown = (v: unknown) => (v === null || v === undefined ? "—" : typeof v === "string" ? v : JSON.stringify(v));

function Changes({ changes }: { changes: Array<{ field: string; before?: unknown; after?: unknown }> }) {
  if (!changes.length) return <span className="text-slate-400">—</span>;
  return (
    <ul className="max-w-md space-y-0.5 text-xs break-all">
      {changes.map((c) => (
        <li key={c.field}>
          <code>{c.field}</code>: {shown(c.before)} → {shown(c.after)}
        </li>
      ))}
    </ul>
  );
}

function Details({ before, after }: { before: unknown; after: unknown }) {
  if (before === null && after === null) return null;
  return (
    <details className="mt-1 text-xs">
      <summary className="cursor-pointer text-slate-600">Before and after</summary>
      <pre className="max-h-40 max-w-md overflow-auto whitespace-pre-wrap">{JSON.stringify({ before, after }, null, 1)}</pre>
    </details>
  );
}

export function AuditLogPage() {
  const [filters, setFilters] = useState<Filters>({});
  // One plain query per page: useInfiniteQuery adds a `direction` the strict input refuses (paging.ts).
  const { cursors, add } = useCursors(JSON.stringify(filters));
  const list = combinePages(trpc.useQueries((t) => cursors.map((cursor) => t.auditLog.list({ ...filters, limit: 50, ...(cursor ? { cursor } : {}) }, { retry: false }))), add);
  const rows = list.rows;
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
        <DataList query={list} isEmpty={rows.length === 0} empty={<p className="p-4 text-sm text-slate-600">No changes match these filters.</p>} itemsLabel="audit log" label="Audit log" head={
          <>
            <Th>When</Th>
            <Th>Who</Th>
            <Th>Action</Th>
            <Th>Target</Th>
            <Th>Change</Th>
          </>
        }>
          {rows.map((a) => (
            <tr key={a.auditId} data-testid="audit-entry">
              <Td>{formatDateTime(a.at)}</Td>
              <Td>{a.actor.email ?? a.actor.userId ?? (a.actor.apiKeyId ? `API key ${a.actor.apiKeyId}` : "—")}</Td>
              <Td>
                <code className="text-xs">{a.action}</code>
                {a.environment ? <span className="ml-1 text-xs text-slate-500">{a.environment}</span> : null}
              </Td>
              <Td>
                <code className="text-xs break-all">{a.target ?? "—"}</code>
              </Td>
              <Td>
                <Changes changes={a.changes} />
                <Details before={a.before} after={a.after} />
              </Td>
            </tr>
          ))}
        </DataList>
      </Card>
    </>
  );
}
