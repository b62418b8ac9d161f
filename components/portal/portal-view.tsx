"use client";
// The referrer's portal: code and share link, tier progress, earnings, wallet, referrals, rewards,
// payouts, earnings over time, the latest proof of liabilities and the opt-in leaderboard. Renders
// what server/portal/page-data.ts read; the wallet step is wallet-card.tsx. A referred customer
// (audience CUSTOMER) sees their rewards and wallet first, and the referral code as an invitation.
import { useState, type ReactNode } from "react";
import type { PortalPageData } from "@/server/portal/page-data";
import { CopyButton } from "../copy-button";
import { formatDate, formatDateTime } from "../format";
import { EarningsChart } from "./earnings-chart";
import { WalletCard } from "./wallet-card";
import { WithdrawCard } from "./withdraw-card";
import { Badge, Button, Card, Notice, Table, Td, Th } from "../ui";
import { countText } from "@/server/shared/display-money";
import { Eth, PriceProvider } from "../money";
import { EmailPreferences } from "./email-preferences";

function Amount({ label, value, children }: { label: string; value: string; children?: ReactNode }) {
  return (
    <div className="rounded-lg bg-slate-50 p-3 ring-1 ring-slate-200">
      <dt className="text-xs font-medium text-slate-600">{label}</dt>
      <dd className="mt-1 text-lg font-semibold text-slate-900"><Eth value={value} /></dd>
      {children}
    </div>
  );
}

/** The proof of liabilities as one line the participant can check, linked to its public page. */
function ProofLine({ proof }: { proof: PortalPageData["me"]["proof"] }) {
  if (!proof) return null;
  const when = formatDateTime(proof.createdAt);
  const text = !proof.covered
    ? `The latest proof (block ${proof.blockNumber}, ${when}) shows the pool did not cover everything owed.`
    : proof.yourShareIncluded
      ? `The pool covers everything owed: verified at block ${proof.blockNumber}, your share included.`
      : `The pool covers everything owed: verified at block ${proof.blockNumber} (before your first reward, so your share is in the next proof).`;
  return (
    <p className="flex flex-wrap items-center gap-x-2 gap-y-1 rounded-lg bg-emerald-50 px-4 py-3 text-sm text-emerald-900 ring-1 ring-emerald-200" data-testid="proof-line">
      <span className="min-w-0">{text}</span>
      <a href={proof.verifyUrl} className="font-medium text-emerald-900 underline hover:no-underline">
        Verify it yourself
      </a>
    </p>
  );
}

/** For a referred customer: what they are owed and why, before anything about referring. */
function CustomerWelcome({ me }: { me: PortalPageData["me"] }) {
  const owed = me.earnings.earnedEth !== "0";
  return (
    <Notice title={`Welcome, ${me.name ?? "and thank you"}`}>
      You joined {me.business.name} through a friend&apos;s referral.{" "}
      {owed ? (
        <>
          You have earned <Eth value={me.earnings.earnedEth} /> in rewards, paid in {me.earnings.asset.symbol} to a wallet you own.{" "}
          {me.wallet.address ? "It is paid to your wallet below." : "Add a wallet below to receive it."}
        </>
      ) : (
        "Rewards you earn are listed below."
      )}
    </Notice>
  );
}

function ShareCard({ me }: { me: PortalPageData["me"] }) {
  const [shared, setShared] = useState(false);
  const link = me.shareUrl;
  async function share() {
    if (!link) return;
    if (typeof navigator.share === "function") {
      await navigator.share({ title: me.business.name, url: link }).catch(() => {});
    } else {
      await navigator.clipboard?.writeText(link).catch(() => {});
    }
    setShared(true);
  }
  return (
    <Card
      title={me.audience === "CUSTOMER" ? "Invite friends too" : "Your referral code"}
      description={me.audience === "CUSTOMER" ? `You have a referral code of your own: people who join ${me.business.name} with it count as your referrals.` : `Share it: people who join ${me.business.name} with it count as your referrals.`}
    >
      <div className="space-y-3">
        <p className="flex flex-wrap items-center gap-3">
          <span className="font-mono text-2xl font-semibold tracking-wider text-slate-900" data-testid="referral-code">{me.referralCode}</span>
          <CopyButton text={me.referralCode} label="Copy code" />
        </p>
        {link ? (
          <div className="flex flex-wrap items-center gap-2">
            <span className="min-w-0 max-w-full font-mono text-sm break-all text-slate-700" data-testid="share-url">{link}</span>
            <CopyButton text={link} label="Copy link" />
            <Button variant="secondary" size="sm" onClick={share}>
              {shared ? "Shared" : "Share"}
            </Button>
          </div>
        ) : (
          <p className="text-sm text-slate-600">Share your code; {me.business.name} has no link to share yet.</p>
        )}
      </div>
    </Card>
  );
}

function TierCard({ tier }: { tier: PortalPageData["me"]["tier"] }) {
  if (!tier.current && !tier.next) return null;
  const from = tier.current?.minReferrals ?? 0;
  const to = tier.next?.minReferrals ?? from;
  const pct = tier.next ? Math.min(100, Math.round(((tier.qualifiedReferrals - from) / Math.max(1, to - from)) * 100)) : 100;
  return (
    <Card title="Your tier">
      <p className="text-sm text-slate-700">
        {tier.current ? (
          <>
            You are in <strong>{tier.current.name}</strong> with {tier.qualifiedReferrals} qualified referrals.
          </>
        ) : (
          <>You have {tier.qualifiedReferrals} qualified referrals.</>
        )}{" "}
        {tier.next && (
          <>
            {tier.next.referralsToNext} more to reach <strong>{tier.next.name}</strong>.
          </>
        )}
      </p>
      <div className="mt-3 h-2 w-full rounded-full bg-slate-200" role="progressbar" aria-label="Progress to the next tier" aria-valuemin={0} aria-valuemax={100} aria-valuenow={pct}>
        <div className="h-2 rounded-full bg-indigo-600" style={{ width: `${pct}%` }} />
      </div>
    </Card>
  );
}

export function PortalView({ data, preview = false }: { data: PortalPageData; preview?: boolean }) {
  const { me, referrals, rewards, payouts } = data;
  const e = me.earnings;
  const Heading = preview ? "h2" : "h1";
  const customer = me.audience === "CUSTOMER";
  const wallet = <WalletCard wallet={me.wallet} readOnly={data.readOnly} customer={customer} />;
  return (
    <PriceProvider price={data.price} asset={data.me.earnings.asset}>
      <div className="mx-auto max-w-4xl space-y-6 px-4 py-6 sm:px-6" data-testid="portal">
        <header className="flex flex-wrap items-end justify-between gap-3">
          <div>
            <p className="text-sm font-medium text-indigo-700">{me.business.name}</p>
            <Heading className="text-2xl font-semibold tracking-tight text-slate-900">{customer ? "Your rewards" : "Your referrals and rewards"}</Heading>
            {me.environment === "TEST" && <p className="mt-1 text-xs text-slate-600">Test environment: nothing here is real money.</p>}
          </div>
          {me.returnUrl && !data.readOnly && (
            <a href={me.returnUrl} className="text-sm font-medium text-indigo-700 hover:underline">
              ← Back to {me.business.name}
            </a>
          )}
        </header>
        {data.readOnly && <Notice title="Read-only preview">This is what this participant sees in their portal. Nothing can be changed here.</Notice>}
        {customer && <CustomerWelcome me={me} />}
        {customer && wallet}
        {!customer && <ShareCard me={me} />}
        {!customer && <TierCard tier={me.tier} />}
        <Card title="Earnings">
          <dl className="grid grid-cols-2 gap-3 sm:grid-cols-3">
            <Amount label="Earned" value={e.earnedEth} />
            <Amount label="On hold" value={e.onHoldEth}>
              {e.holds.length > 0 && (
                <ul className="mt-1 space-y-0.5 text-xs text-slate-600">
                  {e.holds.map((h) => (
                    <li key={h.until}>
                      <Eth value={h.amountEth} /> until {formatDate(h.until)}
                    </li>
                  ))}
                </ul>
              )}
            </Amount>
            <Amount label="Payable" value={e.payableEth} />
            {e.inPayoutEth !== "0" && <Amount label="Being paid out" value={e.inPayoutEth} />}
            <Amount label="Paid out" value={e.paidOutEth} />
            {e.reversedEth !== "0" && <Amount label="Reversed" value={e.reversedEth} />}
            {e.owedBackEth !== "0" && <Amount label="Owed back (from your next payouts)" value={e.owedBackEth} />}
          </dl>
          <div className="mt-4 border-t border-slate-100 pt-4">
            <h3 className="mb-2 text-sm font-semibold text-slate-800">Earnings over time</h3>
            <EarningsChart months={me.earningsByMonth} />
          </div>
        </Card>
        <ProofLine proof={me.proof} />
        <WithdrawCard withdrawals={data.withdrawals} readOnly={data.readOnly} />
        {!customer && wallet}
        {!data.readOnly && <EmailPreferences />}
        {customer && <ShareCard me={me} />}
        {(!customer || referrals.data.length > 0) && <Card
          title="Your referrals"
          description={`${countText(me.clicks.clicks, "visit")} through your link (${me.clicks.last30Days} in the last 30 days); ${countText(me.referrals.total, "referral")} in all, ${me.referrals.qualified} qualified${me.referrals.notCounted ? `; ${me.referrals.notCounted} not counted (your own sign-up or not eligible)` : ""}.`}
          bodyClassName="p-5 pt-0"
        >
          {referrals.data.length === 0 ? (
            <p className="pt-5 text-sm text-slate-600">No referrals yet: share your code.</p>
          ) : (
            <Table label="Your referrals">
              <thead>
                <tr>
                  <Th>Person</Th>
                  <Th>Status</Th>
                  <Th>When</Th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {referrals.data.map((r) => (
                  <tr key={r.referralId}>
                    <Td className="font-mono">{r.referred}</Td>
                    <Td>
                      <Badge color={!r.counted ? "gray" : r.reversedAt || r.refundedEth !== "0" ? "amber" : undefined}>{r.statusText}</Badge>
                    </Td>
                    <Td className="whitespace-nowrap">{formatDate(r.createdAt)}</Td>
                  </tr>
                ))}
              </tbody>
            </Table>
          )}
        </Card>}
        <Card title="Rewards" bodyClassName="p-5 pt-0">
          {rewards.data.length === 0 ? (
            <p className="pt-5 text-sm text-slate-600">No rewards yet.</p>
          ) : (
            <Table label="Rewards">
              <thead>
                <tr>
                  <Th>For</Th>
                  <Th>Amount</Th>
                  <Th>Status</Th>
                  <Th>Earned</Th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {rewards.data.map((w) => (
                  <tr key={w.rewardId} data-testid="reward-row">
                    <Td className="min-w-40 text-sm text-slate-700">{w.description}</Td>
                    <Td className="whitespace-nowrap">
                      <Eth value={w.amountEth} />
                      {w.reversedEth !== "0" && !w.reversedAt && <span className="block text-xs text-slate-600"><Eth value={w.reversedEth} /> refunded</span>}
                    </Td>
                    <Td>
                      <Badge>{w.statusText}</Badge>
                      {w.holdUntil && <span className="ml-2 text-xs whitespace-nowrap text-slate-600">until {formatDate(w.holdUntil)}</span>}
                    </Td>
                    <Td className="whitespace-nowrap">{formatDate(w.createdAt)}</Td>
                  </tr>
                ))}
              </tbody>
            </Table>
          )}
        </Card>
        <Card title="Payouts" bodyClassName="p-5 pt-0">
          {payouts.data.length === 0 ? (
            <p className="pt-5 text-sm text-slate-600">No payouts yet.</p>
          ) : (
            <Table label="Payouts">
              <thead>
                <tr>
                  <Th>Amount</Th>
                  <Th>Status</Th>
                  <Th>Transaction</Th>
                  <Th>When</Th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {payouts.data.map((o) => (
                  <tr key={o.payoutId}>
                    <Td className="whitespace-nowrap"><Eth value={o.amountEth} /></Td>
                    <Td>
                      <Badge>{o.statusText}</Badge>
                    </Td>
                    <Td className="font-mono text-xs">
                      {o.txUrl ? (
                        <a href={o.txUrl} className="text-indigo-700 hover:underline" target="_blank" rel="noreferrer">
                          {o.txHash!.slice(0, 10)}…<span className="sr-only"> (opens the block explorer)</span>
                        </a>
                      ) : o.txHash ? (
                        <span title={o.txHash}>{o.txHash.slice(0, 10)}…</span>
                      ) : (
                        "—"
                      )}
                    </Td>
                    <Td className="whitespace-nowrap">{formatDate(o.confirmedAt ?? o.createdAt)}</Td>
                  </tr>
                ))}
              </tbody>
            </Table>
          )}
        </Card>
        {me.leaderboard && (
          <Card title="Top referrers this month" description={me.leaderboard.yourRank ? `You are number ${me.leaderboard.yourRank}.` : "Qualify a referral this month to join."}>
            <ol className="space-y-1 text-sm">
              {me.leaderboard.top.map((t) => (
                <li key={`${t.rank}-${t.displayName}`} className={t.you ? "font-semibold text-indigo-800" : "text-slate-700"}>
                  {t.rank}. {t.displayName}
                  {t.you && " (you)"} · {t.qualifiedReferrals}
                </li>
              ))}
            </ol>
          </Card>
        )}
      </div>
    </PriceProvider>
  );
}

export function PortalSignedOut() {
  return (
    <main className="mx-auto max-w-md px-4 py-16 text-center">
      <h1 className="text-xl font-semibold text-slate-900">Your portal link has expired</h1>
      <p className="mt-2 text-sm text-slate-600">Open the portal again from the site or app where you got your referral code, or ask for a new link by email on the sign-in page your program shared with you.</p>
    </main>
  );
}
