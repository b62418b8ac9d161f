"use client";
// Balance and funding of the selected environment: the pool balance (a ledger sum), where to
// send ETH, verifying a deposit by its transaction hash, and a dev-chain test deposit on TEST.
import { useState, type FormEvent } from "react";
import { CopyButton } from "../copy-button";
import { PayoutQueueCard, PayoutsCard, SolvencyFigures } from "./payouts";
import { Ledger } from "./rewards";
import { useEnvironment } from "../environment";
import { contractError, errorFor, fieldErrors, formError } from "../errors";
import { useMe } from "../shell";
import { useToast } from "../toast";
import { trpc, type RouterOutputs } from "../trpc";
import { Badge, Button, Card, ErrorState, Field, Input, Notice, PageHeader, Skeleton } from "../ui";
import { DashboardPriceProvider, Eth, EthAmountField, useAsset, useEthWords } from "../money";

function VerifyForm({ txHash, setTxHash }: { txHash: string; setTxHash: (v: string) => void }) {
  const { env } = useEnvironment();
  const { symbol } = useAsset();
  const toast = useToast();
  const ethWords = useEthWords();
  const utils = trpc.useUtils();
  const [result, setResult] = useState<RouterOutputs["funding"]["verify"] | null>(null);
  const verify = trpc.funding.verify.useMutation({
    onSuccess: (r) => {
      setResult(r);
      void utils.funding.balance.invalidate();
      toast(r.alreadyCredited ? "info" : "success", r.alreadyCredited ? "This deposit was already credited" : `${ethWords(r.creditedEth)} credited`);
    },
    onError: () => setResult(null),
  });
  const errs = fieldErrors(verify.error);
  const err = contractError(verify.error);
  // FUNDING_REJECTED / CHAIN_UNAVAILABLE are about the hash the user typed: show them at the field.
  const hashError = errorFor(errs, "txHash") ?? (err && err.code !== "VALIDATION_ERROR" ? err.message : undefined);
  function submit(e: FormEvent) {
    e.preventDefault();
    setResult(null);
    verify.mutate({ txHash: txHash.trim(), environment: env });
  }
  return (
    <form onSubmit={submit} noValidate aria-label="Verify a deposit" className="space-y-3">
      <Field label="Transaction hash" error={hashError} hint={`Paste the hash of the transaction that sent ${symbol} to the deposit address.`}>
        {(p) => <Input {...p} name="txHash" value={txHash} onChange={(e) => setTxHash(e.target.value)} placeholder="0x…" maxLength={66} className="font-mono" spellCheck={false} autoComplete="off" />}
      </Field>
      <Button type="submit" loading={verify.isPending} disabled={!txHash.trim()}>
        Verify and credit
      </Button>
      {result && (
        <Notice tone={result.alreadyCredited ? "info" : "success"} title={result.alreadyCredited ? "Already credited" : "Deposit credited"}>
          <span data-testid="verify-result">
            <Eth value={result.amountEth} />
            {result.from && (
              <>
                {" "}from <span className="font-mono text-xs break-all">{result.from}</span>
              </>
            )}
            {result.confirmations !== null && ` · ${result.confirmations} confirmation${result.confirmations === 1 ? "" : "s"}`}. New balance: <Eth value={result.balanceEth} />.
          </span>
        </Notice>
      )}
    </form>
  );
}

function TestDepositForm({ onSent }: { onSent: (txHash: string) => void }) {
  const [amount, setAmount] = useState("1");
  const toast = useToast();
  const ethWords = useEthWords();
  const send = trpc.funding.testDeposit.useMutation({
    onSuccess: (r) => {
      toast("success", `Sent ${ethWords(r.amountEth)} on the test chain`);
      onSent(r.txHash);
    },
  });
  const errs = fieldErrors(send.error);
  const top = formError(send.error, ["amountEth"]);
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        send.mutate({ amountEth: amount.trim() });
      }}
      noValidate
      aria-label="Send a test deposit"
      className="space-y-3"
    >
      {top && <Notice tone="danger">{top}</Notice>}
      <div className="flex flex-col gap-3 sm:flex-row sm:items-start">
        <EthAmountField label="Amount" name="amountEth" error={errorFor(errs, "amountEth")} className="sm:w-72" value={amount} onChange={setAmount} />
        <Button type="submit" variant="secondary" loading={send.isPending} className="sm:mt-7">
          Send test deposit
        </Button>
      </div>
      {send.data && (
        <p className="text-xs text-slate-600" data-testid="test-deposit-tx">
          Transaction <span className="font-mono break-all">{send.data.txHash}</span> mined in block {send.data.blockNumber}. It is filled in above: verify it to credit your pool.
        </p>
      )}
    </form>
  );
}

export function BalanceCards() {
  const test = trpc.funding.balance.useQuery({ environment: "TEST" });
  const live = trpc.funding.balance.useQuery({ environment: "LIVE" });
  return (
    <div className="grid gap-4 sm:grid-cols-2">
      {([["TEST", test], ["LIVE", live]] as const).map(([env, q]) => (
        <DashboardPriceProvider key={env} environment={env}>
        <div className="min-w-0 rounded-xl bg-white p-5 shadow-sm ring-1 ring-slate-200" data-testid={`balance-${env}`}>
          <div className="flex items-center justify-between">
            <span className="text-sm font-medium text-slate-500">{env === "TEST" ? "Test pool" : "Live pool"}</span>
            <Badge>{env}</Badge>
          </div>
          <div className="mt-2 text-2xl font-semibold tracking-tight [overflow-wrap:anywhere] text-slate-900">{q.isLoading ? <Skeleton className="h-8 w-28" /> : q.error ? <span className="text-sm text-rose-600">{q.error.message}</span> : <Eth value={q.data?.balanceEth} />}</div>
          {q.data?.belowLowPoolAlert && <p className="mt-1 text-xs font-medium text-amber-700">Below the low-pool alert of <Eth value={q.data.lowPoolAlertEth} /></p>}
        </div>
        </DashboardPriceProvider>
      ))}
    </div>
  );
}

export function BalancePage() {
  const { env } = useEnvironment();
  const { isOwner } = useMe();
  const balance = trpc.funding.balance.useQuery({ environment: env });
  const [txHash, setTxHash] = useState("");
  const b = balance.data;
  const { symbol } = useAsset();

  return (
    <>
      <PageHeader title="Balance & funding" description={`Rewards are paid from your pool. Fund it by sending ${symbol} to your deposit address, then verify the transaction.`} />
      <div className="space-y-6">
        {balance.error ? (
          <ErrorState error={balance.error} onRetry={() => balance.refetch()} />
        ) : (
          <div className="grid gap-4 lg:grid-cols-3">
            <div className="min-w-0 rounded-xl bg-gradient-to-br from-indigo-600 to-violet-700 p-6 text-white shadow-sm lg:col-span-1">
              <p className="text-sm font-medium text-indigo-100">{env === "TEST" ? "Test" : "Live"} pool balance</p>
              <p className="mt-2 text-3xl font-semibold tracking-tight [overflow-wrap:anywhere]" data-testid="pool-balance">
                {b ? <Eth value={b.balanceEth} /> : <Skeleton className="h-9 w-32 bg-white/20" />}
              </p>
              {b && (
                <p className="mt-2 text-xs text-indigo-100">
                  Low-pool alert at <Eth value={b.lowPoolAlertEth} />
                  {b.belowLowPoolAlert && <span className="ml-2 rounded bg-amber-400 px-1.5 py-0.5 font-semibold text-amber-950">Below threshold</span>}
                </p>
              )}
            </div>
            <Card title="Deposit address" description={`Send ${env === "TEST" ? "test-chain" : ""} ${symbol} here to fund the ${env.toLowerCase()} pool.`} className="min-w-0 lg:col-span-2">
              {!b ? (
                <Skeleton className="h-10 w-full" />
              ) : b.depositAddress ? (
                <div className="flex flex-col gap-2 sm:flex-row sm:items-center">
                  <code data-testid="deposit-address" className="min-w-0 flex-1 break-all rounded-lg bg-slate-100 px-3 py-2.5 font-mono text-xs text-slate-800">
                    {b.depositAddress}
                  </code>
                  <CopyButton text={b.depositAddress} label="Copy address" size="md" />
                </div>
              ) : (
                <Notice tone="warning">No deposit address is configured for {env}.</Notice>
              )}
              {b && !b.chainConfigured && (
                <div className="mt-3">
                  <Notice tone="warning" title="Funding cannot be verified right now">
                    {/* The operator's detail (which setting is missing) stays in the logs and docs/operations. */}
                    {b.environment === "LIVE" ? "Live deposits cannot be checked yet: whoever runs this service has not connected it to the live network." : "Test deposits cannot be checked right now: the test network is not running. Ask whoever runs this service."}
                  </Notice>
                </div>
              )}
              {b?.asset.tokenAddress && (
                <p className="mt-3 text-xs text-slate-600" data-testid="gas-balance" data-gas="true">
                  Gas for payouts: <strong>{b.gasBalanceEth === null ? "—" : `${b.gasBalanceEth} ETH`}</strong> at this address (outside the pool). Send a little ETH here too: a payout run without enough gas pays nobody and says so.
                </p>
              )}
              {b && b.chainConfigured && <p className="mt-3 text-xs text-slate-500">Deposits are credited after {b.confirmationsRequired} confirmation{b.confirmationsRequired === 1 ? "" : "s"}. A transaction is credited once.</p>}
            </Card>
          </div>
        )}

        <SolvencyFigures />

        {isOwner ? (
          <div className="grid gap-6 lg:grid-cols-2">
            <Card title="Verify a deposit" description="We check the transaction on chain and credit the pool once.">
              <VerifyForm txHash={txHash} setTxHash={setTxHash} />
            </Card>
            {env === "TEST" && (
              <Card title="Send a test deposit" description={symbol === "ETH" ? "Sends ETH from the local development chain's prefunded account to your test deposit address." : `Mints test ${symbol} on the local development chain to your test deposit address.`}>
                <TestDepositForm onSent={setTxHash} />
              </Card>
            )}
          </div>
        ) : (
          <Notice tone="info">Only the owner can verify deposits.</Notice>
        )}

        <PayoutQueueCard />
        <PayoutsCard />
        <Ledger />
      </div>
    </>
  );
}
