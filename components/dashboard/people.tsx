"use client";
// Referrals and participants as lists to search (filters, cursor paging) and as detail pages:
// who referred whom, through which key and source, and everything that happened on one timeline.
import { PortalLinkCard } from "./portal-link";
import { ParticipantClicks } from "./funnel";
import { CommissionAnalyticsCard } from "./commission-analytics";
import Link from "next/link";
import { useState } from "react";
import { useEnvironment } from "../environment";
import { formatDateTime } from "../format";
import { commissionBasis } from "../commission-words";
import { Icon } from "../icons";
import { combinePages, useCursors } from "../paging";
import { trpc, type RouterInputs, type RouterOutputs } from "../trpc";
import { contractError, fieldErrors } from "../errors";
import { useMe } from "../shell";
import { useToast } from "../toast";
import { reasonText, REWARD_STATE } from "../reasons";
import { ExportLink } from "./export-link";
import { Badge, Button, Card, DataList, EmptyState, ErrorState, Field, Input, LoadingRows, PageHeader, Select, Table, Td, Th } from "../ui";
import { Eth, useAmountText } from "../money";

type Person = RouterOutputs["referrals"]["get"]["referrer"];
type ReferralRow = RouterOutputs["referrals"]["list"]["data"][number];
type ReferralStatus = NonNullable<RouterInputs["referrals"]["list"]["status"]>;
const REFERRAL_STATUSES: ReferralStatus[] = ["PENDING", "QUALIFIED", "REWARDED", "FLAGGED", "REJECTED"];

/** The best name a person has: name, else email, else user id, handle or code. */
export const personLabel = (p: Person | null | undefined) => (p ? (p.name ?? p.email ?? p.userId ?? p.handle ?? p.referralCode) : "—");

export function PersonLink({ person }: { person: Person | null | undefined }) {
  if (!person) return <span className="text-slate-500">—</span>;
  const sub = [person.name ? person.email : null, person.referralCode].filter(Boolean).join(" · ");
  return (
    <span className="block min-w-0">
      <Link href={`/dashboard/participants/${person.participantId}`} className="font-medium break-words text-slate-900 hover:text-indigo-700 hover:underline">
        {personLabel(person)}
      </Link>
      {sub && <span className="block font-mono text-xs break-all text-slate-500">{sub}</span>}
    </span>
  );
}

const dayAfter = (d: string) => new Date(Date.parse(`${d}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

/** The list filters as the API takes them (shared by the table and the CSV export link). */
export type ReferralFilters = { search: string; status: string; campaign: string; source: string; apiKeyId: string; from: string; to: string };
const NO_FILTERS: ReferralFilters = { search: "", status: "", campaign: "", source: "", apiKeyId: "", from: "", to: "" };

function referralQuery(env: "TEST" | "LIVE", f: ReferralFilters) {
  return {
    environment: env,
    ...(f.search ? { search: f.search } : {}),
    ...(f.status ? { status: f.status as ReferralStatus } : {}),
    ...(f.campaign ? { campaign: f.campaign } : {}),
    ...(f.source ? { source: f.source } : {}),
    ...(f.apiKeyId ? { apiKeyId: f.apiKeyId } : {}),
    ...(f.from ? { from: f.from } : {}),
    ...(f.to ? { to: dayAfter(f.to) } : {}),
  };
}

function ReferralTable({ rows, showReferrer = true }: { rows: ReferralRow[]; showReferrer?: boolean }) {
  return (
    <Table label="Referrals">
      <thead>
        <tr>
          {showReferrer && <Th>Referrer</Th>}
          <Th>Referred user</Th>
          <Th>Status</Th>
          <Th>Key · source</Th>
          <Th className="text-right">Earned</Th>
          <Th>Created</Th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {rows.map((r) => (
          <tr key={r.referralId} data-testid="referral-row" data-status={r.status}>
            {showReferrer && (
              <Td className="max-w-56">
                <PersonLink person={r.referrer} />
              </Td>
            )}
            <Td className="max-w-56">
              <PersonLink person={r.referred} />
            </Td>
            <Td>
              <Link href={`/dashboard/referrals/${r.referralId}`} className="inline-flex flex-col gap-1 hover:underline" aria-label={`Referral of ${personLabel(r.referred)} by ${personLabel(r.referrer)}: ${r.status.toLowerCase()}, open details`}>
                <Badge>{r.status}</Badge>
                {r.reason && <span className="text-xs text-slate-600">{reasonText(r.reason)}</span>}
              </Link>
            </Td>
            <Td className="text-xs">
              <div>{r.apiKeyName ?? "Dashboard"}</div>
              <div className="text-slate-500">{r.source ?? "—"}{r.campaign ? ` · ${r.campaign}` : ""}</div>
            </Td>
            <Td className="text-right text-xs whitespace-nowrap"><Eth value={r.ethPaid} /></Td>
            <Td className="text-xs whitespace-nowrap">{formatDateTime(r.createdAt)}</Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

/** The searchable list of every referral of the environment in view. */
export function ReferralList() {
  const { env } = useEnvironment();
  const [draft, setDraft] = useState(NO_FILTERS);
  const [applied, setApplied] = useState(NO_FILTERS);
  const keys = trpc.apiKeys.list.useQuery({});
  const input = { ...referralQuery(env, applied), limit: 25 };
  const { cursors, add } = useCursors(JSON.stringify(input));
  const q = combinePages(trpc.useQueries((t) => cursors.map((cursor) => t.referrals.list({ ...input, ...(cursor ? { cursor } : {}) }))), add);
  const filtered = Object.values(applied).some(Boolean);
  const set = (k: keyof ReferralFilters) => (e: { target: { value: string } }) => setDraft((d) => ({ ...d, [k]: e.target.value }));
  return (
    <Card
      title="All referrals"
      description="Search by email, name, referral code, handle or user id."
      actions={<ExportLink kind="referrals" query={referralQuery(env, applied)} />}
      bodyClassName="p-5 pt-0"
    >
      <form
        className="grid gap-3 border-b border-slate-100 py-4 sm:grid-cols-2 sm:items-end lg:grid-cols-4"
        aria-label="Filter referrals"
        onSubmit={(e) => {
          e.preventDefault();
          setApplied({ ...draft, search: draft.search.trim(), campaign: draft.campaign.trim(), source: draft.source.trim() });
        }}
      >
        <Field label="Search">{(p) => <Input {...p} name="search" type="search" value={draft.search} onChange={set("search")} placeholder="Email, name, code…" maxLength={200} />}</Field>
        <Field label="Status">
          {(p) => (
            <Select {...p} name="status" value={draft.status} onChange={set("status")}>
              <option value="">All statuses</option>
              {REFERRAL_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s.charAt(0) + s.slice(1).toLowerCase()}
                </option>
              ))}
            </Select>
          )}
        </Field>
        <Field label="Campaign">{(p) => <Input {...p} name="campaign" value={draft.campaign} onChange={set("campaign")} placeholder="Any" maxLength={100} />}</Field>
        <Field label="Source">{(p) => <Input {...p} name="source" value={draft.source} onChange={set("source")} placeholder="Any" maxLength={100} />}</Field>
        <Field label="API key">
          {(p) => (
            <Select {...p} name="apiKeyId" value={draft.apiKeyId} onChange={set("apiKeyId")}>
              <option value="">Any key</option>
              {(keys.data?.data ?? [])
                .filter((k) => k.environment === env)
                .map((k) => (
                  <option key={k.apiKeyId} value={k.apiKeyId}>
                    {k.name ?? k.prefix}
                  </option>
                ))}
            </Select>
          )}
        </Field>
        <Field label="From">{(p) => <Input {...p} name="from" type="date" value={draft.from} onChange={set("from")} />}</Field>
        <Field label="Through">{(p) => <Input {...p} name="to" type="date" value={draft.to} min={draft.from || undefined} onChange={set("to")} />}</Field>
        <div className="flex gap-2">
          <Button type="submit" variant="secondary">
            Apply
          </Button>
          {filtered && (
            <Button
              variant="ghost"
              onClick={() => {
                setDraft(NO_FILTERS);
                setApplied(NO_FILTERS);
              }}
            >
              Clear
            </Button>
          )}
        </div>
      </form>
      <DataList
        query={q}
        isEmpty={q.rows.length === 0}
        itemsLabel="referrals"
        skeleton={4}
        empty={
          <EmptyState icon={<Icon name="users" className="h-8 w-8" />} title={filtered ? "No referrals match these filters" : `No ${env === "TEST" ? "test" : "live"} referrals yet`}>
            {filtered ? "Try another search or clear the filters." : "When a customer uses a referral code, the referral shows up here."}
          </EmptyState>
        }
      >
        <ReferralTable rows={q.rows} />
      </DataList>
    </Card>
  );
}

function Detail({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs font-medium tracking-wide text-slate-500 uppercase">{label}</dt>
      <dd className="mt-1 text-sm text-slate-800">{children}</dd>
    </div>
  );
}

const TIMELINE_ICON = { REFERRAL_CREATED: "users", EVENT: "bolt", REWARD: "gift", QUALIFIED: "check", STATUS: "shield", REVERSAL: "close" } as const;
/** A timeline entry's status: a reward's state in words, other statuses as they are. */
const timelineStatus = (t: { type: string; status: string | null }) =>
  t.status && (t.type === "REWARD" || t.type === "REVERSAL") && t.status in REWARD_STATE
    ? <Badge color={REWARD_STATE[t.status as keyof typeof REWARD_STATE].color}>{REWARD_STATE[t.status as keyof typeof REWARD_STATE].word}</Badge>
    : t.status && <Badge>{t.status}</Badge>;

export function ReferralDetailPage({ referralId }: { referralId: string }) {
  const formatEth = useAmountText();
  const q = trpc.referrals.get.useQuery({ referralId }, { retry: false });
  const r = q.data;
  return (
    <>
      <PageHeader
        title="Referral"
        description={r ? `${personLabel(r.referrer)} referred ${personLabel(r.referred)}` : "Who referred whom, and everything that happened since."}
        actions={
          <Link href="/dashboard/referrals" className="text-sm font-medium text-indigo-700 hover:underline">
            ← All referrals
          </Link>
        }
      />
      {q.isLoading ? (
        <LoadingRows rows={5} label="Loading referral" />
      ) : q.error ? (
        <ErrorState error={q.error} onRetry={() => q.refetch()} />
      ) : (
        r && (
          <div className="space-y-6" data-testid="referral-detail">
            <Card>
              <dl className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
                <Detail label="Referrer">
                  <PersonLink person={r.referrer} />
                </Detail>
                <Detail label="Referred user">
                  <PersonLink person={r.referred} />
                </Detail>
                <Detail label="Status">
                  <Badge>{r.status}</Badge> {r.reason && <span className="text-xs text-slate-600">{reasonText(r.reason)}</span>}
                </Detail>
                <Detail label="Environment">
                  <Badge>{r.environment}</Badge>
                </Detail>
                <Detail label="API key">{r.apiKeyName ?? "None (dashboard)"}</Detail>
                <Detail label="Source">{r.source ?? "—"}</Detail>
                <Detail label="Campaign">{r.campaign ?? "—"}</Detail>
                <Detail label="Earned for this referral"><Eth value={r.ethPaid} /></Detail>
              </dl>
            </Card>
            <Card title="Timeline" description="Events, rewards and reasons, oldest first.">
              <ol className="space-y-4" aria-label="Referral timeline">
                {r.timeline.map((t, i) => (
                  <li key={i} className="flex gap-3" data-testid="timeline-entry" data-type={t.type}>
                    <span className="mt-0.5 grid h-7 w-7 shrink-0 place-items-center rounded-full bg-slate-100 text-slate-600" aria-hidden="true">
                      <Icon name={TIMELINE_ICON[t.type]} className="h-4 w-4" />
                    </span>
                    <div className="min-w-0 flex-1">
                      <p className="text-sm font-medium break-words text-slate-900">
                        {t.title} {timelineStatus(t)}
                      </p>
                      <p className="text-xs break-words text-slate-600">
                        {formatDateTime(t.at)}
                        {t.amountEth !== null && ` · ${formatEth(t.amountEth)}${t.requestedEth !== t.amountEth ? ` of ${formatEth(t.requestedEth)} asked` : ""}`}
                        {t.reason && ` · ${t.type === "REVERSAL" ? `reason: ${t.reason}` : reasonText(t.reason)}`}
                      </p>
                    </div>
                  </li>
                ))}
              </ol>
            </Card>
          </div>
        )
      )}
    </>
  );
}

// ───────────── Participants ─────────────

export function ParticipantsPage() {
  const { env } = useEnvironment();
  const [draft, setDraft] = useState("");
  const [search, setSearch] = useState("");
  const input = { environment: env, limit: 25, ...(search ? { search } : {}) };
  const { cursors, add } = useCursors(JSON.stringify(input));
  const q = combinePages(trpc.useQueries((t) => cursors.map((cursor) => t.participants.list({ ...input, ...(cursor ? { cursor } : {}) }))), add);
  return (
    <>
      <PageHeader title="Participants" description="Your customers in the referral program: who referred them, whom they referred, what they earned." />
      <Card bodyClassName="p-5 pt-0">
        <form
          className="flex flex-wrap items-end gap-3 border-b border-slate-100 py-4"
          aria-label="Search participants"
          onSubmit={(e) => {
            e.preventDefault();
            setSearch(draft.trim());
          }}
        >
          <Field label="Search" className="min-w-0 flex-1">
            {(p) => <Input {...p} name="search" type="search" value={draft} onChange={(e) => setDraft(e.target.value)} placeholder="Email, name, referral code, handle, user id or wallet" maxLength={200} />}
          </Field>
          <Button type="submit" variant="secondary">
            Search
          </Button>
        </form>
        <DataList
          query={q}
          isEmpty={q.rows.length === 0}
          itemsLabel="participants"
          empty={
            <EmptyState icon={<Icon name="users" className="h-8 w-8" />} title={search ? "Nobody matches this search" : `No ${env === "TEST" ? "test" : "live"} participants yet`}>
              {search ? "Try an email, a name or a referral code." : "Participants appear when your integration creates them or a referral code is used."}
            </EmptyState>
          }
          label="Participants"
          head={
            <>
              <Th>Participant</Th>
              <Th>Referral code</Th>
              <Th>Referred by</Th>
              <Th className="text-right">Referrals</Th>
              <Th className="text-right">Earned</Th>
              <Th className="text-right">Not paid out yet</Th>
              <Th className="text-right">Paid out</Th>
            </>
          }
        >
          {q.rows.map((p) => (
            <tr key={p.participantId} data-testid="participant-row">
              <Td className="max-w-64">
                <PersonLink person={p} />
              </Td>
              <Td className="font-mono text-xs">{p.referralCode}</Td>
              <Td className="max-w-56">{p.referredBy ? <PersonLink person={p.referredBy} /> : <span className="text-slate-500">—</span>}</Td>
              <Td className="text-right">{p.referralsMade}</Td>
              <Td className="text-right text-xs whitespace-nowrap"><Eth value={p.earnedEth} /></Td>
              <Td className="text-right text-xs whitespace-nowrap"><Eth value={p.owedEth} /></Td>
              <Td className="text-right text-xs whitespace-nowrap"><Eth value={p.paidOutEth} /></Td>
            </tr>
          ))}
        </DataList>
      </Card>
    </>
  );
}

/** The payout wallet: shown to everyone, set or cleared by the owner. */
function WalletCard({ participantId, walletAddress, walletVerified }: { participantId: string; walletAddress: string | null; walletVerified: boolean }) {
  const { isOwner } = useMe();
  const toast = useToast();
  const utils = trpc.useUtils();
  const [draft, setDraft] = useState(walletAddress ?? "");
  const save = trpc.participants.update.useMutation({
    onSuccess: (r) => {
      toast("success", r.walletAddress ? "Wallet saved" : "Wallet removed");
      setDraft(r.walletAddress ?? "");
      void utils.participants.invalidate();
    },
  });
  const error = contractError(save.error);
  return (
    <Card
      title="Payout wallet"
      description="Payouts send this participant's payable rewards to this address. A wallet changed here is unverified until the participant signs for it in their portal."
      actions={walletAddress && (walletVerified ? <Badge color="green">Verified by signature</Badge> : <Badge color="amber">Not verified</Badge>)}
    >
      {isOwner ? (
        <form
          className="flex flex-wrap items-end gap-3"
          aria-label="Payout wallet"
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate({ participantId, walletAddress: draft.trim() || null });
          }}
        >
          <Field label="Wallet address" className="min-w-0 flex-1" error={error ? (fieldErrors(save.error).walletAddress ?? error.message) : undefined}>
            {(f) => <Input {...f} name="walletAddress" value={draft} onChange={(e) => setDraft(e.target.value)} placeholder="0x…" maxLength={64} className="font-mono" />}
          </Field>
          <Button type="submit" variant="secondary" loading={save.isPending}>
            {draft.trim() ? "Save wallet" : "Remove wallet"}
          </Button>
        </form>
      ) : (
        <p className="font-mono text-sm break-all text-slate-800" data-testid="wallet-address">
          {walletAddress ?? "No wallet yet"}
        </p>
      )}
    </Card>
  );
}

export function ParticipantDetailPage({ participantId }: { participantId: string }) {
  const q = trpc.participants.get.useQuery({ participantId }, { retry: false });
  const p = q.data;
  return (
    <>
      <PageHeader
        title={p ? personLabel(p) : "Participant"}
        description="Who referred them, whom they referred, and the rewards they received."
        actions={
          <span className="flex flex-wrap gap-4">
            <Link href={`/dashboard/participants/${participantId}/portal`} className="text-sm font-medium text-indigo-700 hover:underline">
              Preview their portal
            </Link>
            <Link href="/dashboard/participants" className="text-sm font-medium text-indigo-700 hover:underline">
              ← All participants
            </Link>
          </span>
        }
      />
      {q.isLoading ? (
        <LoadingRows rows={5} label="Loading participant" />
      ) : q.error ? (
        <ErrorState error={q.error} onRetry={() => q.refetch()} />
      ) : (
        p && (
          <div className="space-y-6" data-testid="participant-detail">
            <Card>
              <dl className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
                <Detail label="Email">{p.email ?? "—"}</Detail>
                <Detail label="User id">{p.userId ?? "—"}</Detail>
                <Detail label="Referral code">
                  <span className="font-mono">{p.referralCode}</span>
                </Detail>
                <Detail label="Handle">{p.handle ?? "—"}</Detail>
                <Detail label="Stripe customer">
                  {p.stripeCustomerId ? <span className="font-mono" data-testid="stripe-customer">{p.stripeCustomerId}</span> : "—"}
                </Detail>
                <Detail label="Referred by">
                  <PersonLink person={p.referredBy} />
                </Detail>
                <Detail label="Referrals made">{p.referralsMade}</Detail>
                <Detail label="Earned"><Eth value={p.earnedEth} /></Detail>
                <Detail label="Not paid out yet (on hold or payable)"><Eth value={p.owedEth} /></Detail>
                <Detail label="Paid out"><Eth value={p.paidOutEth} /></Detail>
                {p.clawbackOwedEth !== "0" && <Detail label="Owes back"><Eth value={p.clawbackOwedEth} /></Detail>}
                <Detail label="Environment">
                  <Badge>{p.environment}</Badge>
                </Detail>
              </dl>
            </Card>
            <WalletCard participantId={p.participantId} walletAddress={p.walletAddress} walletVerified={p.walletVerified} />
            <PortalLinkCard participantId={p.participantId} email={p.email} />
            <Card title="Referral link">
              <ParticipantClicks participantId={p.participantId} />
            </Card>
            <CommissionAnalyticsCard participantId={p.participantId} />
            <Card title="Referrals made" bodyClassName="p-5 pt-0">
              <DataList query={q} isEmpty={p.referrals.length === 0} itemsLabel="referrals" empty={<p className="text-sm text-slate-500">No referrals yet.</p>}>
                <ReferralTable rows={p.referrals} showReferrer={false} />
              </DataList>
            </Card>
            <Card title="Rewards received" bodyClassName="p-5 pt-0">
              <DataList query={q} isEmpty={p.rewards.length === 0} itemsLabel="rewards" empty={<p className="text-sm text-slate-500">No rewards yet.</p>} label="Rewards received" head={
                <>
                  <Th>Kind</Th>
                  <Th>State</Th>
                  <Th className="text-right">Amount</Th>
                  <Th>Reason</Th>
                  <Th>When</Th>
                </>
              }>
                {p.rewards.map((w) => (
                  <tr key={w.rewardId} data-testid="participant-reward-row" data-state={w.state}>
                    <Td className="text-xs">{w.kind}</Td>
                    <Td>
                      <Badge color={REWARD_STATE[w.state].color}>{REWARD_STATE[w.state].word}</Badge>
                    </Td>
                    <Td className="text-right text-xs whitespace-nowrap">
                      <Eth value={w.amountEth} />
                      {w.requestedEth !== w.amountEth && <span className="block text-slate-500">of <Eth value={w.requestedEth} /></span>}
                      {w.ruleId && <span className="block whitespace-normal text-slate-500" data-testid="reward-basis">{commissionBasis(w, p.asset.symbol)}</span>}
                    </Td>
                    <Td className="text-xs">{w.state === "REVERSED" ? `Reversed: ${w.reversalReason ?? "no reason given"}` : reasonText(w.reason) || "—"}</Td>
                    <Td className="text-xs whitespace-nowrap">{formatDateTime(w.paidAt ?? w.createdAt)}</Td>
                  </tr>
                ))}
              </DataList>
            </Card>
          </div>
        )
      )}
    </>
  );
}
