"use client";
// Payouts of the selected environment: solvency at a glance (on-chain balance vs. what the
// ledger says is available and owed), the payout queue (who is owed what, and why the next run
// pays them or not), the payouts with their participants and transactions, and a run button
// (which also retries payouts that failed for lack of ETH: their rewards stayed payable).
import { useEnvironment } from "../environment";
import { contractError } from "../errors";
import { formatDateTime, formatEth } from "../format";
import { useMe } from "../shell";
import { useToast } from "../toast";
import { combinePages, useCursors } from "../paging";
import { trpc, type RouterOutputs } from "../trpc";
import { ExportLink } from "./export-link";
import { PersonLink } from "./people";
import { Badge, Button, Card, cx, DataList, EmptyState, Notice, Stat, Table, Td, Th } from "../ui";
import { Eth, useAsset, useEthWords } from "../money";
import { countText } from "@/server/shared/display-money";
import { Fragment } from "react";

type Batch = RouterOutputs["payouts"]["batches"]["data"][number];

/** The heading row of a batch's payouts: how many it pays, what in all, and its transaction (linked to the explorer when one is configured). */
function BatchRow({ batch, txHash }: { batch: Batch | undefined; txHash: string | null }) {
  const hash = batch?.txHash ?? txHash;
  return (
    <tr data-testid="payout-batch-row" className="bg-slate-50">
      <td colSpan={4} className="px-3 py-3 pl-5 align-middle text-sm text-slate-700">
        One transaction paid {batch ? `${batch.recipients} participants` : "several participants"}
        {batch && (
          <>
            {" "}
            (<Eth value={batch.amountEth} />)
          </>
        )}
      </td>
      <Td>{batch && <Badge color={STATUS_COLOR[batch.status]}>{batch.status}</Badge>}</Td>
      <Td className="font-mono text-xs break-all">
        {batch?.txUrl ? (
          <a href={batch.txUrl} target="_blank" rel="noreferrer" className="underline">
            {hash}
            <span className="sr-only"> (opens the block explorer)</span>
          </a>
        ) : (
          (hash ?? "—")
        )}
      </Td>
    </tr>
  );
}

const STATUS_COLOR = { PENDING: "gray", SENT: "indigo", CONFIRMED: "green", FAILED: "red" } as const;

export function SolvencyFigures() {
  const { env } = useEnvironment();
  const q = trpc.funding.balance.useQuery({ environment: env });
  const b = q.data;
  return (
    <div className="space-y-3" data-testid="solvency">
      <dl className="grid gap-4 sm:grid-cols-2 lg:grid-cols-5">
        <Stat label="On chain" loading={q.isLoading} value={b ? <Eth value={b.onChainBalanceEth} /> : "—"} hint="Deposit address balance" />
        <Stat label="Available" loading={q.isLoading} value={<Eth value={b?.availableEth} />} hint="For new rewards" />
        <Stat label="Owed" loading={q.isLoading} value={<Eth value={b?.owedEth} />} hint="Earned, not paid out" />
        <Stat label="Paid out" loading={q.isLoading} value={<Eth value={b?.paidOutEth} />} hint="Confirmed payouts" />
        {b?.asset.tokenAddress ? (
          // A token program pays gas in ETH from the deposit address, outside its pool: its ETH there.
          <Stat label="Gas" loading={q.isLoading} value={<span data-gas="true">{formatEth(b.gasBalanceEth)}</span>} hint="At the deposit address, outside the pool" />
        ) : (
          <Stat label="Gas" loading={q.isLoading} value={<Eth value={b?.gasSpentEth} />} hint="Paid from the pool" />
        )}
      </dl>
      {b && b.reconciled === true && <Notice tone="success">The deposit address holds exactly what is available plus what is owed.</Notice>}
      {b && b.reconciled === false && (
        <Notice tone="warning" title="On-chain balance and ledger differ">
          Difference: <Eth value={b.unreconciledEth} /> (on chain − (available + owed)). A positive difference is usually a deposit not verified yet; payouts in flight also show here until confirmed.
        </Notice>
      )}
      {b && b.reconciled === null && <Notice tone="info">The chain cannot be read right now{b.chainProblem ? `: ${b.chainProblem}` : ""}.</Notice>}
    </div>
  );
}

type Queue = RouterOutputs["payouts"]["queue"];
type QueueState = Queue["items"][number]["state"];

const QUEUE_STATES: { state: QueueState; label: string; color: "green" | "amber" | "gray" | "red" | "indigo" }[] = [
  { state: "REQUESTED", label: "Withdrawal requested", color: "green" },
  { state: "READY", label: "Ready to pay", color: "green" },
  { state: "ON_HOLD", label: "On hold", color: "indigo" },
  { state: "BELOW_MINIMUM", label: "Below the minimum", color: "amber" },
  { state: "NO_WALLET", label: "No wallet", color: "gray" },
  { state: "WALLET_FAILED", label: "Wallet failed", color: "red" },
];
const DOT = { green: "bg-emerald-600", amber: "bg-amber-500", gray: "bg-slate-400", red: "bg-rose-600", indigo: "bg-indigo-600" } as const;
/** A stored reason without its leading code ("TX_REVERTED: the wallet …" → "the wallet …"). */
const inWords = (reason: string) => reason.replace(/^[A-Z_]+: /, "");
const stateOf = (s: QueueState) => QUEUE_STATES.find((q) => q.state === s)!;

/** Why a queue item is where it is, in words (dates in the reader's locale). */
function queueReason(i: Queue["items"][number], q: Queue, formatEth: (eth: string) => string): string {
  switch (i.state) {
    case "REQUESTED":
      return "Asked to be paid in their portal: the run their request started pays them.";
    case "READY":
      return q.autoPayoutEnabled ? "Paid by the next scheduled run." : "Paid when you run payouts.";
    case "ON_HOLD":
      return `On hold until ${formatDateTime(i.nextPayableAt)} (holding period of ${q.payoutHoldDays} day${q.payoutHoldDays === 1 ? "" : "s"}).`;
    case "BELOW_MINIMUM":
      return `${formatEth(i.amountEth)} is below the minimum payout of ${formatEth(q.minPayoutEth)}.`;
    case "NO_WALLET":
      return i.customer && !i.walletAddress ? "A referred customer owed a bonus: they can add a wallet in their portal (send them a portal link)." : "No payout wallet yet: add one on the participant's page.";
    case "WALLET_FAILED":
      return `The wallet refused a payout (${inWords(i.reason)}). It is skipped until the wallet changes.`;
  }
}

/** "Nothing to pay" with the reasons: what the queue holds that the run could not pay. */
function nothingToPay(q: Queue | undefined, skipped: { code: string }[], formatEth: (eth: string) => string, symbol: string): string {
  const parts: string[] = [];
  const gas = skipped.filter((x) => x.code === "GAS_TOO_HIGH").length;
  if (gas) parts.push(`${gas} held back because the gas would be too large a share of the amount`);
  if (q) {
    const t = q.totals;
    if (t.ON_HOLD.count) {
      const next = q.items.filter((i) => i.state === "ON_HOLD" && i.nextPayableAt).map((i) => i.nextPayableAt!).sort()[0];
      parts.push(`${t.ON_HOLD.count} on hold${next ? ` (the first until ${formatDateTime(next)})` : ""}`);
    }
    if (t.BELOW_MINIMUM.count) parts.push(`${t.BELOW_MINIMUM.count} below the minimum payout of ${formatEth(q.minPayoutEth)}`);
    if (t.NO_WALLET.count) parts.push(`${t.NO_WALLET.count} without a wallet`);
    if (t.WALLET_FAILED.count) parts.push(`${t.WALLET_FAILED.count} whose wallet failed`);
  }
  return parts.length ? `Nothing to pay: ${parts.join(", ")}.` : `Nothing to pay: no participant is owed ${symbol}.`;
}

type QueueItem = Queue["items"][number];
/** A referred customer owed a bonus with no wallet: grouped apart from the referrers. */
const walletlessCustomer = (i: QueueItem) => i.state === "NO_WALLET" && i.customer && !i.walletAddress;

function QueueTable({ label, rows, q, testId }: { label: string; rows: QueueItem[]; q: Queue; testId: string }) {
  const ethWords = useEthWords();
  return (
    <Table label={label}>
      <thead>
        <tr>
          <Th>Participant</Th>
          <Th>State</Th>
          <Th>Owed</Th>
          <Th>Why</Th>
        </tr>
      </thead>
      <tbody>
        {rows.map((i) => (
          <tr key={i.participant.participantId} data-testid={testId}>
            <Td className="min-w-0">
              <PersonLink person={i.participant} />
            </Td>
            <Td>
              <Badge color={stateOf(i.state).color}>{stateOf(i.state).label}</Badge>
            </Td>
            <Td className="break-all tabular-nums">
              <Eth value={i.state === "ON_HOLD" ? i.onHoldEth : i.payableEth} />
              {i.state !== "ON_HOLD" && i.onHoldEth !== "0" && <span className="block text-xs text-slate-500">+ <Eth value={i.onHoldEth} /> on hold</span>}
            </Td>
            <Td className="max-w-xs text-sm break-words text-slate-600">{queueReason(i, q, ethWords)}</Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

export function PayoutQueueCard() {
  const { env } = useEnvironment();
  const q = trpc.payouts.queue.useQuery({ environment: env });
  const { symbol } = useAsset();
  const data = q.data;
  const items = data?.items ?? [];
  const customers = items.filter(walletlessCustomer);
  const others = items.filter((i) => !walletlessCustomer(i));
  return (
    <Card title="Payout queue" description={`Participants owed ${symbol} that no payout holds yet, and what the next run does about them.`}>
      {data && (
        <ul className="mb-4 flex flex-wrap gap-2" aria-label="Payout queue totals" data-testid="queue-totals">
          {QUEUE_STATES.map(({ state, label, color }) => ({ state, label, color, total: data.totals[state] })).filter((x) => x.total).map(({ state, label, color, total }) => (
            <li key={state} className="min-w-0">
              <span className="inline-block rounded-md bg-slate-50 px-2 py-1 text-xs break-all text-slate-700 ring-1 ring-slate-200 ring-inset">
                <span className={cx("mr-1 inline-block size-2 rounded-full", DOT[color])} aria-hidden="true" />
                {label}: {total!.count} · <Eth value={total!.eth} />
              </span>
            </li>
          ))}
        </ul>
      )}
      <DataList
        query={q}
        isEmpty={items.length === 0}
        itemsLabel="payout queue"
        empty={<EmptyState title={`Nobody is owed ${symbol}`}>Rewards appear here once earned, until a payout sends them.</EmptyState>}
      >
        {others.length > 0 && <QueueTable label="Payout queue" rows={others} q={data!} testId="queue-row" />}
        {data && data.customersWithoutWallet.count > 0 && (
          <section aria-labelledby="queue-customers" className={others.length > 0 ? "mt-6" : ""}>
            <h3 id="queue-customers" className="text-sm font-semibold text-slate-800" data-testid="queue-customers">
              Owed to customers without a wallet: {countText(data.customersWithoutWallet.count, "customer")} · <Eth value={data.customersWithoutWallet.eth} />
            </h3>
            <p className="mt-1 mb-2 text-xs text-slate-600">Referred customers granted a bonus who have not added a payout wallet. They can add one in their portal; until then nothing is sent. To stop granting these, turn on “Bonus only to customers with a wallet” on Configuration.</p>
            {customers.length > 0 && <QueueTable label="Owed to customers without a wallet" rows={customers} q={data} testId="queue-customer-row" />}
          </section>
        )}
        {data?.truncated && <p className="mt-2 text-xs text-slate-500">The first 100 participants are listed; the totals count everyone.</p>}
      </DataList>
    </Card>
  );
}

export function PayoutsCard() {
  const ethWords = useEthWords();
  const { symbol } = useAsset();
  const { env } = useEnvironment();
  const { isOwner } = useMe();
  const toast = useToast();
  const utils = trpc.useUtils();
  const { cursors, add } = useCursors(env);
  const list = combinePages(trpc.useQueries((t) => cursors.map((cursor) => t.payouts.list({ environment: env, limit: 20, ...(cursor ? { cursor } : {}) }))), add);
  const run = trpc.payouts.run.useMutation({
    onSuccess: async (r) => {
      const failed = r.payouts.filter((p) => p.status === "FAILED").length;
      void utils.payouts.list.invalidate();
      void utils.payouts.batches.invalidate();
      void utils.funding.balance.invalidate();
      await utils.payouts.queue.invalidate();
      if (r.payouts.length) toast(failed ? "info" : "success", `${r.payouts.length} payout${r.payouts.length === 1 ? "" : "s"} created${failed ? `, ${failed} failed` : ""}`);
      else toast("info", nothingToPay(utils.payouts.queue.getData({ environment: env }), r.skipped, ethWords, symbol));
    },
  });
  const rows = list.rows;
  const batches = new Map((trpc.payouts.batches.useQuery({ environment: env, limit: 200 }).data?.data ?? []).map((b) => [b.batchId, b]));
  const runError = contractError(run.error);
  const hasFailed = rows.some((p) => p.status === "FAILED");
  return (
    <Card
      title="Payouts"
      description="Payable rewards are sent on chain from your deposit address to each participant's wallet."
      actions={
        <div className="flex flex-wrap items-center gap-2">
          <ExportLink kind="payouts" query={{ environment: env }} />
          {isOwner && (
            <Button size="sm" loading={run.isPending} onClick={() => run.mutate({ environment: env })}>
              {hasFailed ? "Run payouts (retries failed)" : "Run payouts"}
            </Button>
          )}
        </div>
      }
    >
      {runError && <Notice tone="danger">{runError.message}</Notice>}
      <DataList
        query={list}
        isEmpty={rows.length === 0}
        itemsLabel="payouts"
        empty={<EmptyState title="No payouts yet">Participants with a wallet are paid their payable rewards when payouts run.</EmptyState>}
        label="Payouts"
        head={
          <>
            <Th>Created</Th>
            <Th>Participant</Th>
            <Th>Wallet</Th>
            <Th>Amount</Th>
            <Th>Status</Th>
            <Th>Transaction</Th>
          </>
        }
      >
        {rows.map((p, i) => (
          <Fragment key={p.payoutId}>
          {p.batchId && rows[i - 1]?.batchId !== p.batchId && <BatchRow batch={batches.get(p.batchId)} txHash={p.txHash} />}
          <tr data-testid="payout-row">
            <Td>{formatDateTime(p.createdAt)}</Td>
            <Td className="min-w-0">
              <PersonLink person={p.participant} />
            </Td>
            <Td className="font-mono text-xs break-all">{p.walletAddress}</Td>
            <Td>
              <Eth value={p.amountEth} />
              {p.offsetEth !== "0" && <span className="block text-xs text-slate-500">offset <Eth value={p.offsetEth} /></span>}
            </Td>
            <Td>
              <Badge color={STATUS_COLOR[p.status]}>{p.status}</Badge>
              {p.error && <span className="mt-1 block max-w-xs text-xs break-words text-slate-500">{inWords(p.error)}</span>}
            </Td>
            <Td className="font-mono text-xs break-all">{p.batchId ? <span className="text-slate-500">in the batch above</span> : (p.txHash ?? "—")}</Td>
          </tr>
          </Fragment>
        ))}
      </DataList>
    </Card>
  );
}
