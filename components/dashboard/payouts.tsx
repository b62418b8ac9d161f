"use client";
// Payouts of the selected environment: solvency at a glance (on-chain balance vs. what the
// ledger says is available and owed), the payouts with their transactions, and a run button
// (which also retries failed payouts: their rewards stayed payable).
import { useEnvironment } from "../environment";
import { contractError } from "../errors";
import { formatDateTime, formatEth } from "../format";
import { useMe } from "../shell";
import { useToast } from "../toast";
import { combinePages, useCursors } from "../paging";
import { trpc } from "../trpc";
import { ExportLink } from "./export-link";
import { Badge, Button, Card, EmptyState, ListBody, LoadMore, Notice, Stat, Table, Td, Th } from "../ui";

const STATUS_COLOR = { PENDING: "gray", SENT: "indigo", CONFIRMED: "green", FAILED: "red" } as const;

export function SolvencyFigures() {
  const { env } = useEnvironment();
  const q = trpc.funding.balance.useQuery({ environment: env });
  const b = q.data;
  return (
    <div className="space-y-3" data-testid="solvency">
      <dl className="grid gap-4 sm:grid-cols-2 lg:grid-cols-5">
        <Stat label="On chain" loading={q.isLoading} value={b ? (b.onChainBalanceEth === null ? "—" : formatEth(b.onChainBalanceEth)) : "—"} hint="Deposit address balance" />
        <Stat label="Available" loading={q.isLoading} value={formatEth(b?.availableEth)} hint="For new rewards" />
        <Stat label="Owed" loading={q.isLoading} value={formatEth(b?.owedEth)} hint="Earned, not paid out" />
        <Stat label="Paid out" loading={q.isLoading} value={formatEth(b?.paidOutEth)} hint="Confirmed payouts" />
        <Stat label="Gas" loading={q.isLoading} value={formatEth(b?.gasSpentEth)} hint="Paid from the pool" />
      </dl>
      {b && b.reconciled === true && <Notice tone="success">The deposit address holds exactly what is available plus what is owed.</Notice>}
      {b && b.reconciled === false && (
        <Notice tone="warning" title="On-chain balance and ledger differ">
          Difference: {formatEth(b.unreconciledEth)} (on chain − (available + owed)). A positive difference is usually a deposit not verified yet; payouts in flight also show here until confirmed.
        </Notice>
      )}
      {b && b.reconciled === null && <Notice tone="info">The chain cannot be read right now{b.chainProblem ? `: ${b.chainProblem}` : ""}.</Notice>}
    </div>
  );
}

export function PayoutsCard() {
  const { env } = useEnvironment();
  const { isOwner } = useMe();
  const toast = useToast();
  const utils = trpc.useUtils();
  const { cursors, add } = useCursors(env);
  const list = combinePages(trpc.useQueries((t) => cursors.map((cursor) => t.payouts.list({ environment: env, limit: 20, ...(cursor ? { cursor } : {}) }))), add);
  const run = trpc.payouts.run.useMutation({
    onSuccess: (r) => {
      const failed = r.payouts.filter((p) => p.status === "FAILED").length;
      toast(failed ? "info" : "success", r.payouts.length ? `${r.payouts.length} payout${r.payouts.length === 1 ? "" : "s"} created${failed ? `, ${failed} failed` : ""}` : "Nothing to pay right now");
      void utils.payouts.list.invalidate();
      void utils.funding.balance.invalidate();
    },
  });
  const rows = list.rows;
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
      <ListBody
        loading={list.isLoading}
        error={list.error}
        onRetry={() => list.refetch()}
        isEmpty={rows.length === 0}
        label="payouts"
        empty={<EmptyState title="No payouts yet">Participants with a wallet are paid their payable rewards when payouts run.</EmptyState>}
      >
        <Table label="Payouts">
          <thead>
            <tr>
              <Th>Created</Th>
              <Th>Wallet</Th>
              <Th>Amount</Th>
              <Th>Status</Th>
              <Th>Transaction</Th>
            </tr>
          </thead>
          <tbody>
            {rows.map((p) => (
              <tr key={p.payoutId} data-testid="payout-row">
                <Td>{formatDateTime(p.createdAt)}</Td>
                <Td className="font-mono text-xs">{p.walletAddress}</Td>
                <Td>
                  {formatEth(p.amountEth)}
                  {p.offsetEth !== "0" && <span className="block text-xs text-slate-500">offset {formatEth(p.offsetEth)}</span>}
                </Td>
                <Td>
                  <Badge color={STATUS_COLOR[p.status]}>{p.status}</Badge>
                  {p.error && <span className="mt-1 block max-w-xs text-xs text-slate-500">{p.error}</span>}
                </Td>
                <Td className="font-mono text-xs break-all">{p.txHash ?? "—"}</Td>
              </tr>
            ))}
          </tbody>
        </Table>
        <LoadMore hasMore={list.hasNextPage} loading={list.isFetchingNextPage} onClick={() => list.fetchNextPage()} />
      </ListBody>
    </Card>
  );
}
