"use client";
// Rewards: every reward (paid, held, refused, with why), the pool ledger, and a manual grant.
import { useState, type FormEvent } from "react";
import { useEnvironment } from "../environment";
import { contractError, errorFor, fieldErrors, formError } from "../errors";
import { formatDateTime, formatEth } from "../format";
import { combinePages, useCursors } from "../paging";
import { Icon } from "../icons";
import { useMe } from "../shell";
import { useToast } from "../toast";
import { trpc } from "../trpc";
import { reasonText } from "../reasons";
import { Badge, Button, Card, cx, EmptyState, Field, Input, ListBody, LoadMore, Notice, PageHeader, Select, Table, Td, Th } from "../ui";
import { ExportLink } from "./export-link";

function GrantForm() {
  const { env } = useEnvironment();
  const toast = useToast();
  const utils = trpc.useUtils();
  const [v, setV] = useState({ recipient: "", amountEth: "", reason: "" });
  const grant = trpc.rewards.create.useMutation({
    onSuccess: (r) => {
      void utils.rewards.invalidate();
      void utils.funding.balance.invalidate();
      if (r.status === "PAID") {
        toast("success", `Paid ${formatEth(r.amountEth)} to ${r.participant.email ?? r.participant.referralCode}`);
        setV({ recipient: "", amountEth: "", reason: "" });
      } else toast("error", `Reward ${r.status.toLowerCase()}: ${r.reason ?? "see the list"}`);
    },
  });
  const errs = fieldErrors(grant.error);
  const ruleError = contractError(grant.error);
  // An unknown recipient is the recipient field's problem, not the form's.
  const unknownRecipient = ruleError?.code === "NOT_FOUND" ? ruleError.message : undefined;
  const top = unknownRecipient ? null : formError(grant.error, ["recipient", "amountEth", "reason"]);
  function submit(e: FormEvent) {
    e.preventDefault();
    grant.mutate({ recipient: v.recipient.trim(), amountEth: v.amountEth.trim(), reason: v.reason.trim(), environment: env });
  }
  const set = (k: keyof typeof v) => (e: { target: { value: string } }) => setV((x) => ({ ...x, [k]: e.target.value }));
  return (
    <form onSubmit={submit} noValidate aria-label="Grant a reward" className="space-y-3">
      {top && <Notice tone="danger">{top}</Notice>}
      <div className="grid gap-3 sm:grid-cols-3">
        <Field label="Recipient" error={errorFor(errs, "recipient") ?? unknownRecipient} hint="Participant id, referral code or email">
          {(p) => <Input {...p} name="recipient" value={v.recipient} onChange={set("recipient")} maxLength={254} />}
        </Field>
        <Field label="Amount (ETH)" error={errorFor(errs, "amountEth")}>
          {(p) => <Input {...p} name="amountEth" inputMode="decimal" value={v.amountEth} onChange={set("amountEth")} placeholder="0.01" />}
        </Field>
        <Field label="Reason" error={errorFor(errs, "reason")}>
          {(p) => <Input {...p} name="reason" value={v.reason} onChange={set("reason")} maxLength={500} placeholder="Goodwill bonus" />}
        </Field>
      </div>
      <div className="flex justify-end">
        <Button type="submit" loading={grant.isPending}>
          Grant reward
        </Button>
      </div>
    </form>
  );
}

const REWARD_STATUSES = ["PAID", "HELD", "REFUSED"] as const;
const REWARD_KINDS = ["REFERRAL", "BONUS", "MANUAL"] as const;
const cap = (s: string) => s.charAt(0) + s.slice(1).toLowerCase();

function RewardsList() {
  const { env } = useEnvironment();
  const none = { status: "", kind: "", from: "", to: "" };
  const [draft, setDraft] = useState(none);
  const [applied, setApplied] = useState(none);
  // `to` is exclusive on the server; the date picker means "through that day".
  const dayAfter = (d: string) => new Date(Date.parse(`${d}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  const filters = {
    environment: env,
    ...(applied.status ? { status: applied.status as (typeof REWARD_STATUSES)[number] } : {}),
    ...(applied.kind ? { kind: applied.kind as (typeof REWARD_KINDS)[number] } : {}),
    ...(applied.from ? { from: applied.from } : {}),
    ...(applied.to ? { to: dayAfter(applied.to) } : {}),
  };
  const input = { ...filters, limit: 25 };
  const { cursors, add } = useCursors(JSON.stringify(input));
  const q = combinePages(trpc.useQueries((t) => cursors.map((cursor) => t.rewards.list({ ...input, ...(cursor ? { cursor } : {}) }))), add);
  const rows = q.rows;
  const filtered = Object.values(applied).some(Boolean);
  const set = (k: keyof typeof none) => (e: { target: { value: string } }) => setDraft((d) => ({ ...d, [k]: e.target.value }));
  return (
    <>
    <div className="flex flex-wrap items-end justify-between gap-3 border-b border-slate-100 py-4">
      <form
        className="grid min-w-0 flex-1 gap-3 sm:grid-cols-2 sm:items-end lg:grid-cols-5"
        aria-label="Filter rewards"
        onSubmit={(e) => {
          e.preventDefault();
          setApplied(draft);
        }}
      >
        <Field label="Status">
          {(p) => (
            <Select {...p} name="status" value={draft.status} onChange={set("status")}>
              <option value="">All statuses</option>
              {REWARD_STATUSES.map((s) => <option key={s} value={s}>{cap(s)}</option>)}
            </Select>
          )}
        </Field>
        <Field label="Kind">
          {(p) => (
            <Select {...p} name="kind" value={draft.kind} onChange={set("kind")}>
              <option value="">All kinds</option>
              {REWARD_KINDS.map((s) => <option key={s} value={s}>{cap(s)}</option>)}
            </Select>
          )}
        </Field>
        <Field label="From">{(p) => <Input {...p} name="from" type="date" value={draft.from} onChange={set("from")} />}</Field>
        <Field label="Through">{(p) => <Input {...p} name="to" type="date" value={draft.to} min={draft.from || undefined} onChange={set("to")} />}</Field>
        <div className="flex gap-2">
          <Button type="submit" variant="secondary">Apply</Button>
          {filtered && <Button variant="ghost" onClick={() => { setDraft(none); setApplied(none); }}>Clear</Button>}
        </div>
      </form>
      <ExportLink kind="rewards" query={filters} />
    </div>
  return (
    <ListBody loading={q.isLoading} error={q.error} onRetry={() => q.refetch()} isEmpty={!rows.length} label="rewards" empty={filtered ? <EmptyState icon={<Icon name="gift" className="h-8 w-8" />} title="No rewards match these filters">Try another status or clear the filters.</EmptyState> : <EmptyState icon={<Icon name="gift" className="h-8 w-8" />} title="No rewards yet">Rewards appear when referred users send qualifying events, or when you grant one.</EmptyState>}>
      <Table label="Rewards">
        <thead>
          <tr>
            <Th>Recipient</Th>
            <Th>Kind</Th>
            <Th>Status</Th>
            <Th className="text-right">Paid</Th>
            <Th>Why</Th>
            <Th>When</Th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {rows.map((r) => (
            <tr key={r.rewardId} data-testid="reward-row" data-status={r.status}>
              <Td>
                <div className="font-medium text-slate-900">{r.participant.name ?? r.participant.email ?? r.participant.externalId ?? r.participant.referralCode}</div>
                <div className="font-mono text-xs text-slate-500">{r.participant.referralCode}</div>
              </Td>
              <Td><Badge color="gray">{r.kind}</Badge></Td>
              <Td><Badge>{r.status}</Badge></Td>
              <Td className="text-right font-medium whitespace-nowrap">
                {formatEth(r.amountEth)}
                {r.requestedEth !== r.amountEth && <div className="text-xs font-normal text-slate-500">asked {formatEth(r.requestedEth)}</div>}
              </Td>
              <Td className="max-w-56 text-xs"><span className="line-clamp-2">{[reasonText(r.reason), r.note].filter(Boolean).join(" · ") || "—"}</span></Td>
              <Td className="text-xs whitespace-nowrap">{formatDateTime(r.paidAt ?? r.createdAt)}</Td>
            </tr>
          ))}
        </tbody>
      </Table>
      <LoadMore hasMore={q.hasNextPage} loading={q.isFetchingNextPage} onClick={() => q.fetchNextPage()} />
    </ListBody>
    </>
  );
}

function Ledger() {
  const { env } = useEnvironment();
  const { cursors, add } = useCursors(env);
  const results = trpc.useQueries((t) => cursors.map((cursor) => t.rewards.ledger({ environment: env, limit: 25, ...(cursor ? { cursor } : {}) })));
  const q = combinePages(results, add);
  const rows = q.rows;
  const balance = results[0]?.data?.balanceEth;
  return (
    <Card title="Ledger" description="Every movement of the pool: funding credits, reward debits, adjustments." actions={balance !== undefined && <span className="text-sm text-slate-600">Balance <strong data-testid="ledger-balance" className="text-slate-900">{formatEth(balance)}</strong></span>} bodyClassName="p-5 pt-0">
      <ListBody loading={q.isLoading} error={q.error} onRetry={() => q.refetch()} isEmpty={!rows.length} label="ledger" rows={3} empty={<EmptyState icon={<Icon name="wallet" className="h-8 w-8" />} title="The ledger is empty">Fund your pool on the Balance &amp; funding page.</EmptyState>}>
        <>
          <Table label="Ledger">
            <thead>
              <tr>
                <Th>Entry</Th>
                <Th className="text-right">Amount</Th>
                <Th>Reference</Th>
                <Th>When</Th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {rows.map((l) => (
                <tr key={l.ledgerEntryId} data-testid="ledger-row" data-kind={l.kind}>
                  <Td>
                    <Badge color={l.kind === "FUNDING" ? "green" : l.kind === "REWARD" ? "indigo" : "gray"}>{l.kind}</Badge>
                    {l.memo && <div className="mt-1 text-xs text-slate-500">{l.memo}</div>}
                  </Td>
                  <Td className={cx("text-right font-medium whitespace-nowrap", l.amountEth.startsWith("-") ? "text-rose-700" : "text-emerald-700")}>{l.amountEth.startsWith("-") ? "" : "+"}{formatEth(l.amountEth)}</Td>
                  <Td className="max-w-48 truncate font-mono text-xs" >{l.txHash ?? l.rewardId ?? "—"}</Td>
                  <Td className="text-xs whitespace-nowrap">{formatDateTime(l.createdAt)}</Td>
                </tr>
              ))}
            </tbody>
          </Table>
          <LoadMore hasMore={q.hasNextPage} loading={q.isFetchingNextPage} onClick={() => q.fetchNextPage()} />
        </>
      </ListBody>
    </Card>
  );
}

export function RewardsPage() {
  const { isOwner } = useMe();
  const { env } = useEnvironment();
  return (
    <>
      <PageHeader title="Rewards" description={`What your ${env === "TEST" ? "test" : "live"} pool paid, held or refused, and why.`} />
      <div className="space-y-6">
        {isOwner && (
          <Card title="Grant a reward" description="Manual rewards follow the same daily cap and pool balance rules.">
            <GrantForm />
          </Card>
        )}
        <Card title="Rewards" bodyClassName="p-5 pt-0">
          <RewardsList />
        </Card>
        <Ledger />
      </div>
    </>
  );
}
