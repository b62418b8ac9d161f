"use client";
// Rewards: every reward (earned and where it stands, held, refused, reversed, with why), the
// reversals with their reason and outcome, the pool ledger, a manual grant and (owner) a reverse action.
import { useState, type FormEvent } from "react";
import { useEnvironment } from "../environment";
import { contractError, errorFor, fieldErrors, formError } from "../errors";
import { formatDateTime } from "../format";
import { combinePages, useCursors } from "../paging";
import { Icon } from "../icons";
import { useMe } from "../shell";
import { useToast } from "../toast";
import { trpc } from "../trpc";
import { commissionBasis } from "../commission-words";
import { reasonText, REVERSAL_OUTCOME, REVERSAL_SOURCE, REWARD_STATE, REWARD_STATUS_WORD } from "../reasons";
import { Badge, Button, Card, ConfirmDialog, cx, DataList, EmptyState, Field, Input, Notice, PageHeader, Select, Td, Textarea, Th } from "../ui";
import type { RouterOutputs } from "../trpc";
import { ExportLink } from "./export-link";
import { Eth, EthAmountField, useAsset, useEthWords } from "../money";

function GrantForm() {
  const { env } = useEnvironment();
  const toast = useToast();
  const ethWords = useEthWords();
  const utils = trpc.useUtils();
  const [v, setV] = useState({ recipient: "", amountEth: "", reason: "" });
  const grant = trpc.rewards.create.useMutation({
    onSuccess: (r) => {
      void utils.rewards.invalidate();
      void utils.funding.balance.invalidate();
      if (r.status === "PAID") {
        toast("success", `${r.participant.email ?? r.participant.referralCode} earned ${ethWords(r.amountEth)} (${REWARD_STATE[r.state].word.toLowerCase()})`);
        setV({ recipient: "", amountEth: "", reason: "" });
      } else toast("error", `Reward ${REWARD_STATE[r.state].word.toLowerCase()}: ${reasonText(r.reason) || "see the list"}`);
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
        <EthAmountField label="Amount" name="amountEth" error={errorFor(errs, "amountEth")} value={v.amountEth} onChange={(eth) => setV((x) => ({ ...x, amountEth: eth }))} placeholder="0.01" />
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
const REWARD_KINDS = ["REFERRAL", "BONUS", "MANUAL", "COMMISSION"] as const;
const cap = (s: string) => s.charAt(0) + s.slice(1).toLowerCase();
const personOf = (p: { name: string | null; email: string | null; externalId: string | null; referralCode: string }) => p.name ?? p.email ?? p.externalId ?? p.referralCode;

type Reward = RouterOutputs["rewards"]["list"]["data"][number];
const REVERSIBLE = new Set(["ON_HOLD", "PAYABLE", "IN_PAYOUT", "PAID_OUT"]);

/** The owner reverses one earned reward, with a reason; the outcome depends on whether it was paid out. */
function ReverseDialog({ reward, onClose }: { reward: Reward; onClose: () => void }) {
  const toast = useToast();
  const ethWords = useEthWords();
  const utils = trpc.useUtils();
  const [reason, setReason] = useState("");
  const reverse = trpc.rewards.reverse.useMutation({
    onSuccess: (v) => {
      void utils.rewards.invalidate();
      void utils.funding.balance.invalidate();
      void utils.participants.invalidate();
      void utils.referrals.invalidate();
      toast("success", `Reward reversed: ${REVERSAL_OUTCOME[v.outcome].toLowerCase()} (${ethWords(v.amountEth)})`);
      onClose();
    },
  });
  const errs = fieldErrors(reverse.error);
  const top = formError(reverse.error, ["reason"]);
  const paidOut = reward.state === "PAID_OUT" || reward.state === "IN_PAYOUT";
  const { symbol } = useAsset();
  return (
    <ConfirmDialog onClose={onClose} title="Reverse this reward?" cancelLabel="Keep it" confirmLabel="Reverse reward" form="reverse-reward" pending={reverse.isPending} error={top}>
      <form
        id="reverse-reward"
        noValidate
        aria-label="Reverse a reward"
        className="space-y-3"
        onSubmit={(e) => {
          e.preventDefault();
          reverse.mutate({ rewardId: reward.rewardId, reason: reason.trim() });
        }}
      >
        <p>
          {personOf(reward.participant)} earned <strong><Eth value={reward.amountEth} /></strong> ({REWARD_STATE[reward.state].word.toLowerCase()}).{" "}
          {paidOut ? "It was already paid out: it becomes a clawback, offset from their next payouts." : `It was not paid out yet: its ${symbol} goes back to the pool.`}
        </p>
        <Field label="Reason" error={errorFor(errs, "reason")} hint="Shown in the reversals list and sent in the reward.reversed webhook.">
          {(p) => <Textarea {...p} name="reason" value={reason} onChange={(e) => setReason(e.target.value)} maxLength={500} rows={2} placeholder="Refunded order" />}
        </Field>
      </form>
    </ConfirmDialog>
  );
}

function RewardsList() {
  const { env } = useEnvironment();
  const { isOwner } = useMe();
  const [reversing, setReversing] = useState<Reward | null>(null);
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
              {REWARD_STATUSES.map((s) => <option key={s} value={s}>{REWARD_STATUS_WORD[s]}</option>)}
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
    <DataList query={q} isEmpty={!rows.length} itemsLabel="rewards" empty={filtered ? <EmptyState icon={<Icon name="gift" className="h-8 w-8" />} title="No rewards match these filters">Try another status or clear the filters.</EmptyState> : <EmptyState icon={<Icon name="gift" className="h-8 w-8" />} title="No rewards yet">Rewards appear when referred users send qualifying events, or when you grant one.</EmptyState>} label="Rewards" head={
      <>
        <Th>Recipient</Th>
        <Th>Kind</Th>
        <Th>State</Th>
        <Th className="text-right">Amount</Th>
        <Th>Why</Th>
        <Th>When</Th>
        {isOwner && <Th className="text-right"><span className="sr-only">Actions</span></Th>}
      </>
    }>
      {rows.map((r) => (
        <tr key={r.rewardId} data-testid="reward-row" data-status={r.status} data-state={r.state}>
          <Td>
            <div className="font-medium break-words text-slate-900">{personOf(r.participant)}</div>
            <div className="font-mono text-xs text-slate-500">{r.participant.referralCode}</div>
          </Td>
          <Td><Badge color="gray">{cap(r.kind)}</Badge></Td>
          <Td><span title={REWARD_STATE[r.state].means}><Badge color={REWARD_STATE[r.state].color}>{REWARD_STATE[r.state].word}</Badge></span></Td>
          <Td className={cx("text-right font-medium break-all", r.state === "REVERSED" && "text-slate-500 line-through")}>
            <Eth value={r.state === "HELD_FOR_REVIEW" || r.state === "REFUSED" ? r.requestedEth : r.amountEth} />
            {r.status === "PAID" && r.requestedEth !== r.amountEth && <div className="text-xs font-normal text-slate-500 no-underline">asked <Eth value={r.requestedEth} /></div>}
            {r.state !== "REVERSED" && r.reversedEth !== "0" && <div className="text-xs font-normal text-rose-700" data-testid="reward-partly-reversed"><Eth value={r.reversedEth} /> refunded</div>}
          </Td>
          <Td className="max-w-56 text-xs">
            <span className="line-clamp-3">
              {r.state === "REVERSED" ? `Reversed: ${r.reversalReason ?? "no reason given"}` : [reasonText(r.reason), r.note].filter(Boolean).join(" · ") || (r.ruleId ? "" : "—")}
            </span>
            {r.ruleId && <span className="block text-slate-500">{commissionBasis(r)}</span>}
          </Td>
          <Td className="text-xs whitespace-nowrap">{formatDateTime(r.reversedAt ?? r.paidAt ?? r.createdAt)}</Td>
          {isOwner && (
            <Td className="text-right">
              {REVERSIBLE.has(r.state) && <Button size="sm" variant="secondary" className="!text-rose-700" onClick={() => setReversing(r)}>Reverse</Button>}
            </Td>
          )}
        </tr>
      ))}
    </DataList>
    {reversing && <ReverseDialog reward={reversing} onClose={() => setReversing(null)} />}
    </>
  );
}

/** Every reversal of the environment: whose reward, how much, why, and what happened to the amount. */
function Reversals() {
  const { env } = useEnvironment();
  const { cursors, add } = useCursors(env);
  const q = combinePages(trpc.useQueries((t) => cursors.map((cursor) => t.rewards.reversals({ environment: env, limit: 25, ...(cursor ? { cursor } : {}) }))), add);
  const rows = q.rows;
  return (
    <Card title="Reversals" description="Earned rewards taken back (refunds, chargebacks, staff), with the reason and what happened to the amount." bodyClassName="p-5 pt-0">
      <DataList query={q} isEmpty={!rows.length} itemsLabel="reversals" skeleton={2} empty={<EmptyState title="No reversals">Rewards are reversed by a reversal event (Configuration), POST /sdk/rewards/reverse, or the Reverse button above.</EmptyState>} label="Reversals" head={
        <>
          <Th>Participant</Th>
          <Th className="text-right">Amount</Th>
          <Th>Reason</Th>
          <Th>Outcome</Th>
          <Th>When</Th>
        </>
      }>
        {rows.map((v) => (
          <tr key={v.reversalId} data-testid="reversal-row" data-outcome={v.outcome}>
            <Td>
              <div className="font-medium break-words text-slate-900">{personOf(v.participant)}</div>
              <div className="text-xs text-slate-500">{cap(v.rewardKind)} reward</div>
            </Td>
            <Td className="text-right font-medium break-all"><Eth value={v.amountEth} /></Td>
            <Td className="max-w-64 text-xs break-words">
              {v.reason}
              <div className="text-slate-500">by {REVERSAL_SOURCE[v.source]}{v.eventName ? ` “${v.eventName}”` : ""}</div>
            </Td>
            <Td className="text-xs"><Badge color={v.outcome === "CLAWBACK" ? "amber" : "gray"}>{REVERSAL_OUTCOME[v.outcome]}</Badge></Td>
            <Td className="text-xs whitespace-nowrap">{formatDateTime(v.createdAt)}</Td>
          </tr>
        ))}
      </DataList>
    </Card>
  );
}

/** The pool's ledger, newest first, with the balance after each entry (Rewards and Balance pages). */
export function Ledger() {
  const { env } = useEnvironment();
  const { cursors, add } = useCursors(env);
  const results = trpc.useQueries((t) => cursors.map((cursor) => t.rewards.ledger({ environment: env, limit: 25, ...(cursor ? { cursor } : {}) })));
  const q = combinePages(results, add);
  const rows = q.rows;
  const balance = results[0]?.data?.balanceEth;
  return (
    <Card
      title="Ledger"
      description="Every movement of the pool: deposits, reward debits, gas, reversals and adjustments, with the balance after each."
      actions={
        <div className="flex flex-wrap items-center gap-3">
          {balance !== undefined && <span className="text-sm text-slate-600">Balance <strong data-testid="ledger-balance" className="text-slate-900"><Eth value={balance} /></strong></span>}
          <ExportLink kind="ledger" query={{ environment: env }} />
        </div>
      }
      bodyClassName="p-5 pt-0"
    >
      <DataList query={q} isEmpty={!rows.length} itemsLabel="ledger" skeleton={3} empty={<EmptyState icon={<Icon name="wallet" className="h-8 w-8" />} title="The ledger is empty">Fund your pool on the Balance &amp; funding page.</EmptyState>} label="Ledger" head={
        <>
          <Th>Entry</Th>
          <Th className="text-right">Amount</Th>
          <Th className="text-right">Balance after</Th>
          <Th>Reference</Th>
          <Th>When</Th>
        </>
      }>
        {rows.map((l) => (
          <tr key={l.ledgerEntryId} data-testid="ledger-row" data-kind={l.kind}>
            <Td>
              <Badge color={l.kind === "FUNDING" ? "green" : l.kind === "REWARD" ? "indigo" : "gray"}>{l.kind}</Badge>
              {l.memo && <div className="mt-1 text-xs text-slate-500">{l.memo}</div>}
            </Td>
            <Td className={cx("text-right font-medium whitespace-nowrap", l.amountEth.startsWith("-") ? "text-rose-700" : "text-emerald-700")}>{l.amountEth.startsWith("-") ? "" : "+"}<Eth value={l.amountEth} /></Td>
            <Td className="text-right whitespace-nowrap"><span data-testid="ledger-balance-after"><Eth value={l.balanceAfterEth} /></span></Td>
            <Td className="max-w-48 truncate font-mono text-xs" >{l.txHash ?? l.rewardId ?? "—"}</Td>
            <Td className="text-xs whitespace-nowrap">{formatDateTime(l.createdAt)}</Td>
          </tr>
        ))}
      </DataList>
    </Card>
  );
}

export function RewardsPage() {
  const { isOwner } = useMe();
  const { env } = useEnvironment();
  return (
    <>
      <PageHeader title="Rewards" description={`What participants earned from your ${env === "TEST" ? "test" : "live"} pool and where each reward stands (on hold, payable, paid out, reversed), what was held or refused, and why.`} />
      <div className="space-y-6">
        {isOwner && (
          <Card title="Grant a reward" description="Manual rewards follow the same daily cap and pool balance rules.">
            <GrantForm />
          </Card>
        )}
        <Card title="Rewards" bodyClassName="p-5 pt-0">
          <RewardsList />
        </Card>
        <Reversals />
        <Ledger />
      </div>
    </>
  );
}
