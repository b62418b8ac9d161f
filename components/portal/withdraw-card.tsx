"use client";
// The referrer's "pay me now" button (POST /portal/api/withdrawals): the amount a payout would
// pay, the minimum and when it would arrive; disabled, with the reason in words, when a request
// cannot be made; and the requests made so far with their status and transaction.
import { useRouter } from "next/navigation";
import { useState } from "react";
import type { PortalPageData } from "@/server/portal/page-data";
import { formatDateTime } from "../format";
import { Eth } from "../money";
import { Badge, Button, Card, Notice, Table, Td, Th } from "../ui";

type Withdrawals = PortalPageData["withdrawals"];
const STATUS_WORDS = { REQUESTED: "Requested", SENT: "Being sent", PAID: "Paid", FAILED: "Not paid" } as const;
const STATUS_COLOR = { REQUESTED: "indigo", SENT: "indigo", PAID: "green", FAILED: "amber" } as const;

/** When a request made now should arrive, in words: the run's start, then the transaction's confirmations. */
function arrivalWords(a: Withdrawals["availability"]): string {
  const start = a.runWithinSeconds <= 1 ? "at once" : `within ${a.runWithinSeconds} seconds`;
  return `The payout run starts ${start}; the transfer arrives once the chain confirms it (${a.confirmations} confirmation${a.confirmations === 1 ? "" : "s"}), usually within a few minutes.`;
}

export function WithdrawCard({ withdrawals, readOnly }: { withdrawals: Withdrawals; readOnly: boolean }) {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [requested, setRequested] = useState<string | null>(null);
  const a = withdrawals.availability;
  async function withdraw() {
    setProblem(null);
    setBusy(true);
    try {
      const res = await fetch("/portal/api/withdrawals", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      const json = (await res.json()) as { amountEth?: string; error?: { message: string } };
      if (!res.ok) throw new Error(json.error?.message ?? `Request failed (${res.status})`);
      setRequested(json.amountEth ?? null);
      router.refresh();
    } catch (e) {
      setProblem(e instanceof Error ? e.message : "The request failed");
    } finally {
      setBusy(false);
    }
  }
  return (
    <Card title="Withdraw" description="Ask to be paid now instead of waiting for the next scheduled payout.">
      <div className="space-y-3 text-sm" data-testid="withdraw">
        <dl className="grid grid-cols-2 gap-3">
          <div>
            <dt className="text-xs font-medium text-slate-600">Available to withdraw</dt>
            <dd className="mt-1 text-lg font-semibold text-slate-900" data-testid="withdraw-amount"><Eth value={a.amountEth} /></dd>
          </div>
          <div>
            <dt className="text-xs font-medium text-slate-600">Minimum</dt>
            <dd className="mt-1 text-lg font-semibold text-slate-900" data-testid="withdraw-minimum"><Eth value={a.minWithdrawalEth} /></dd>
          </div>
        </dl>
        <p className="text-slate-700" id="withdraw-arrival">Expected arrival: {arrivalWords(a)}</p>
        {!a.allowed && a.message && (
          <p className="text-slate-700" id="withdraw-reason" data-testid="withdraw-reason" data-reason={a.reason ?? undefined}>
            {a.message}
          </p>
        )}
        {requested && <Notice tone="success">Requested: <Eth value={requested} /> is paid by the next payout run.</Notice>}
        {problem && <Notice tone="danger">{problem}</Notice>}
        {!readOnly && (
          <Button onClick={withdraw} loading={busy} disabled={!a.allowed} aria-describedby={a.allowed ? "withdraw-arrival" : "withdraw-reason withdraw-arrival"}>
            Withdraw <Eth value={a.amountEth} />
          </Button>
        )}
        {withdrawals.data.length > 0 && (
          <Table label="Your withdrawal requests">
            <thead>
              <tr>
                <Th>Requested</Th>
                <Th>Amount</Th>
                <Th>Status</Th>
                <Th>Transaction</Th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {withdrawals.data.map((w) => (
                <tr key={w.withdrawalId} data-testid="withdrawal-row">
                  <Td className="whitespace-nowrap">{formatDateTime(w.createdAt)}</Td>
                  <Td className="whitespace-nowrap"><Eth value={w.paidEth ?? w.amountEth} /></Td>
                  <Td>
                    <Badge color={STATUS_COLOR[w.status]}>{STATUS_WORDS[w.status]}</Badge>
                    {w.failure && <span className="block text-xs text-slate-600">{w.failure.replace(/^[A-Z_]+: /, "")}</span>}
                  </Td>
                  <Td className="font-mono text-xs">
                    {w.txUrl ? (
                      <a href={w.txUrl} className="text-indigo-700 hover:underline" target="_blank" rel="noreferrer">
                        {w.txHash!.slice(0, 10)}…<span className="sr-only"> (opens the block explorer)</span>
                      </a>
                    ) : w.txHash ? (
                      <span title={w.txHash}>{w.txHash.slice(0, 10)}…</span>
                    ) : (
                      "—"
                    )}
                  </Td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </div>
    </Card>
  );
}
