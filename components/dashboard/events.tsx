"use client";
// Events: everything /track recorded (or the dashboard created), filterable, with review of
// FLAGGED events (approve releases their held rewards; reject refuses them).
import Link from "next/link";
import { useState, type FormEvent } from "react";
import { useEnvironment } from "../environment";
import { fieldErrors, formError } from "../errors";
import { formatDateTime } from "../format";
import { combinePages, useCursors } from "../paging";
import { Icon } from "../icons";
import { commissionBasis, moneyText } from "../commission-words";
import { reasonText, REWARD_STATUS_WORD } from "../reasons";
import { ExportLink } from "./export-link";
import { PersonLink, personLabel } from "./people";
import { useMe } from "../shell";
import { useToast } from "../toast";
import { trpc, type RouterInputs, type RouterOutputs } from "../trpc";
import { Badge, Button, Card, ConfirmDialog, DataList, Dialog, EmptyState, ErrorState, Field, Input, LoadingRows, PageHeader, Select, Table, Td, Textarea, Th } from "../ui";
import { Eth, useEthWords } from "../money";

type EventRow = RouterOutputs["events"]["list"]["data"][number];
type Status = NonNullable<RouterInputs["events"]["list"]["status"]>;
const STATUSES: Status[] = ["QUEUED", "PROCESSED", "FLAGGED", "REJECTED", "FAILED"];

type Outcome = RouterOutputs["events"]["previewStatus"]["rewards"][number];
const KIND_WORD = { REFERRAL: "Referral reward", BONUS: "Bonus", MANUAL: "Manual reward", COMMISSION: "Commission" } as const;

/** "Referral reward to Alice: 0.002 ETH paid of 0.01 (daily limit per person reached)". */
function outcomeSentence(r: Outcome, tense: "will" | "did", formatEth: (eth: string) => string): string {
  const who = personLabel(r.recipient);
  const base = `${KIND_WORD[r.kind]} to ${who}`;
  const why = reasonText(r.reason);
  if (r.status === "PAID") {
    const partial = r.amountEth !== r.requestedEth ? ` of ${formatEth(r.requestedEth)}` : "";
    return `${base}: ${formatEth(r.amountEth)}${partial} ${tense === "will" ? "will be earned" : "earned"}${why ? ` (${why})` : ""}`;
  }
  if (r.status === "REFUSED") return `${base}: ${formatEth(r.requestedEth)} ${tense === "will" ? "will be refused" : "refused"}${why ? ` (${why})` : ""}`;
  return `${base}: ${formatEth(r.requestedEth)} held${why ? ` (${why})` : ""}`;
}

function ReviewDialog({ event, decision, onClose }: { event: EventRow; decision: "PROCESSED" | "REJECTED"; onClose: () => void }) {
  const [reason, setReason] = useState("");
  const toast = useToast();
  const ethWords = useEthWords();
  const utils = trpc.useUtils();
  // What the engine would decide right now (caps, today's totals, pool), computed and rolled back.
  const preview = trpc.events.previewStatus.useQuery({ eventId: event.eventId, status: decision }, { retry: false, staleTime: 0, gcTime: 0 });
  const review = trpc.events.changeStatus.useMutation({
    onSuccess: (e) => {
      const lines = e.outcome.map((r) => outcomeSentence(r, "did", ethWords));
      toast(
        e.outcome.some((r) => r.status === "REFUSED") ? "error" : "success",
        `${e.status === "PROCESSED" ? "Event approved" : "Event rejected"}${lines.length ? `. ${lines.join(". ")}.` : ": no rewards were held for it."}`,
      );
      void utils.events.invalidate();
      void utils.referrals.invalidate();
      void utils.participants.invalidate();
      void utils.rewards.invalidate();
      void utils.funding.balance.invalidate();
      void utils.analytics.invalidate();
      onClose();
    },
  });
  const approve = decision === "PROCESSED";
  return (
    <ConfirmDialog
      onClose={onClose}
      title={approve ? "Approve this event?" : "Reject this event?"}
      confirmLabel={approve ? "Approve" : "Reject"}
      tone={approve ? "primary" : "danger"}
      pending={review.isPending}
      confirmDisabled={preview.isLoading}
      error={formError(review.error)}
      onConfirm={() => review.mutate({ eventId: event.eventId, status: decision, reason: reason.trim() || undefined })}
    >
      <p>
        <strong>{event.eventName}</strong>
        {event.referrerParticipant ? ` · ${personLabel(event.referrerParticipant)} referred ${personLabel(event.referredParticipant)}` : event.referrer ? ` · referrer ${event.referrer}` : ""}. Flagged: {reasonText(event.reason) || "held for review"}.
      </p>
      <div>
        <h3 className="mb-1 font-semibold text-slate-800">{approve ? "If you approve now" : "If you reject"}</h3>
        {preview.isLoading ? (
          <LoadingRows rows={2} label="Working out the rewards" />
        ) : preview.error ? (
          <p className="text-sm text-rose-700" role="alert">{formError(preview.error)}</p>
        ) : preview.data!.rewards.length === 0 ? (
          <p>No rewards are held for this event; nothing will be paid.</p>
        ) : (
          <ul className="space-y-1" data-testid="review-preview">
            {preview.data!.rewards.map((r) => (
              <li key={r.rewardId} className="flex gap-2" data-testid="review-preview-row" data-status={r.status}>
                <Badge>{r.status}</Badge>
                <span>{outcomeSentence(r, "will", ethWords)}</span>
              </li>
            ))}
          </ul>
        )}
        {approve && <p className="mt-2 text-xs text-slate-500">Worked out with today&rsquo;s limits and the current pool balance.</p>}
      </div>
      <Field label="Note (optional)">{(p) => <Textarea {...p} name="reason" value={reason} onChange={(e) => setReason(e.target.value)} maxLength={500} rows={2} />}</Field>
    </ConfirmDialog>
  );
}

function EventDetails({ eventId, onClose }: { eventId: string; onClose: () => void }) {
  const q = trpc.events.get.useQuery({ eventId });
  const e = q.data;
  return (
    <Dialog open onClose={onClose} title="Event details" footer={<Button onClick={onClose}>Close</Button>}>
      {q.isLoading ? (
        <LoadingRows rows={4} label="Loading event" />
      ) : q.error ? (
        <ErrorState error={q.error} onRetry={() => q.refetch()} />
      ) : (
        e && (
          <div className="space-y-4" data-testid="event-details">
            <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1.5 text-sm">
              <dt className="text-slate-500">Event</dt>
              <dd className="font-medium">{e.eventName}</dd>
              <dt className="text-slate-500">Amount</dt>
              <dd data-testid="event-amount">
                {e.amount && e.currency ? moneyText(e.amount, e.currency) : "—"}
                {e.currency && e.refundedAmount !== "0" && (
                  <span className="ml-2 text-xs text-rose-700" data-testid="event-refunded">
                    {moneyText(e.refundedAmount, e.currency)} refunded
                  </span>
                )}
              </dd>
              <dt className="text-slate-500">Status</dt>
              <dd>
                <Badge>{e.status}</Badge> {e.reason && <span className="text-xs text-slate-600">{reasonText(e.reason)}</span>}
              </dd>
              <dt className="text-slate-500">Referrer</dt>
              <dd>{e.referrerParticipant ? <PersonLink person={e.referrerParticipant} /> : <span className="font-mono text-xs">{e.referrer ?? "—"}</span>}</dd>
              <dt className="text-slate-500">Referred user</dt>
              <dd>{e.referredParticipant ? <PersonLink person={e.referredParticipant} /> : "—"}</dd>
              <dt className="text-slate-500">Referral</dt>
              <dd className="text-xs break-all">{e.referralId ? <Link className="text-indigo-700 hover:underline" href={`/dashboard/referrals/${e.referralId}`}>Open the referral</Link> : "—"}</dd>
              <dt className="text-slate-500">Source</dt>
              <dd>{e.source ?? "—"}</dd>
              <dt className="text-slate-500">Idempotency key</dt>
              <dd className="font-mono text-xs break-all">{e.idempotencyKey ?? "—"}</dd>
              <dt className="text-slate-500">Received</dt>
              <dd>{formatDateTime(e.createdAt)}</dd>
              <dt className="text-slate-500">Processed</dt>
              <dd>{formatDateTime(e.processedAt)}</dd>
            </dl>
            <div>
              <h3 className="mb-1 text-sm font-semibold text-slate-800">Metadata</h3>
              <pre tabIndex={0} aria-label="Metadata" className="max-h-48 overflow-auto rounded-lg bg-slate-900 p-3 text-xs text-slate-100">{JSON.stringify(e.metadata, null, 2)}</pre>
            </div>
            <div>
              <h3 className="mb-1 text-sm font-semibold text-slate-800">Rewards</h3>
              {e.rewards.length === 0 ? (
                <p className="text-sm text-slate-500">No rewards for this event.</p>
              ) : (
                <ul className="divide-y divide-slate-100 text-sm">
                  {e.rewards.map((r) => (
                    <li key={r.rewardId} className="flex flex-wrap items-center justify-between gap-2 py-1.5">
                      <span>
                        <Badge color="gray">{r.kind}</Badge> <Badge color={r.status === "PAID" ? "green" : undefined}>{REWARD_STATUS_WORD[r.status]}</Badge>
                      </span>
                      <span className="text-xs text-slate-600">
                        {r.participantId === e.referrerParticipant?.participantId ? `${personLabel(e.referrerParticipant)} · ` : r.participantId === e.referredParticipant?.participantId ? `${personLabel(e.referredParticipant)} · ` : ""}
                        <Eth value={r.amountEth} />
                        {r.requestedEth !== r.amountEth && <> of <Eth value={r.requestedEth} /></>}
                        {r.reason && ` · ${reasonText(r.reason)}`}
                        {r.ruleId && r.baseAmount && r.baseCurrency && ` · ${commissionBasis(r)}`}
                      </span>
                    </li>
                  ))}
                </ul>
              )}
            </div>
          </div>
        )
      )}
    </Dialog>
  );
}

export function EventsTable({ events, onReview, compact }: { events: EventRow[]; onReview?: (e: EventRow, d: "PROCESSED" | "REJECTED") => void; compact?: boolean }) {
  const [details, setDetails] = useState<string | null>(null);
  return (
    <>
    <Table label="Events">
      <thead>
        <tr>
          <Th>Event</Th>
          <Th>Status</Th>
          {!compact && <Th>Referrer → referred</Th>}
          {!compact && <Th>Campaign</Th>}
          <Th className="text-right">Amount</Th>
          <Th>Rewards</Th>
          <Th>Received</Th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {events.map((e) => {
          const paid = e.rewards.filter((r) => r.status === "PAID");
          return (
            <tr key={e.eventId} data-testid="event-row" data-status={e.status}>
              <Td>
                <button type="button" onClick={() => setDetails(e.eventId)} className="text-left font-medium text-slate-900 hover:text-indigo-600 hover:underline focus-visible:outline-2 focus-visible:outline-indigo-600" aria-label={`Details of ${e.eventName} event`}>
                  {e.eventName}
                </button>
                <div className="text-xs text-slate-500">{e.source ?? "—"}</div>
              </Td>
              <Td>
                <Badge>{e.status}</Badge>
                {e.reason && e.status !== "PROCESSED" && <div className="mt-1 max-w-48 text-xs text-slate-600">{reasonText(e.reason)}</div>}
                {/* Review buttons sit next to the status so that they stay in view on a phone. */}
                {onReview && e.status === "FLAGGED" && (
                  <div className="mt-2 flex gap-1.5">
                    <Button size="sm" onClick={() => onReview(e, "PROCESSED")}>
                      Approve
                    </Button>
                    <Button size="sm" variant="secondary" className="!text-rose-700" onClick={() => onReview(e, "REJECTED")}>
                      Reject
                    </Button>
                  </div>
                )}
              </Td>
              {!compact && (
                <Td className="max-w-64 text-xs">
                  {e.referrerParticipant ? (
                    <span>
                      {personLabel(e.referrerParticipant)} → {personLabel(e.referredParticipant)}
                      {e.referrer && <span className="block font-mono text-slate-500">code {e.referrer}</span>}
                    </span>
                  ) : (
                    <span className="font-mono">{e.referrer ?? "—"}</span>
                  )}
                </Td>
              )}
              {!compact && <Td className="text-xs">{e.campaign ?? "—"}</Td>}
              <Td className="text-right text-xs whitespace-nowrap" >{e.amount && e.currency ? moneyText(e.amount, e.currency) : <span className="text-slate-500">—</span>}</Td>
              <Td className="text-xs whitespace-nowrap">
                {e.rewards.length === 0 ? (
                  <span className="text-slate-500">—</span>
                ) : (
                  <span title={e.rewards.map((r) => `${r.kind} ${r.status} ${r.amountEth}`).join("\n")}>
                    {paid.length ? <Eth value={paid.reduce((s, r) => addEth(s, r.amountEth), "0")} /> : `${e.rewards.length} ${e.rewards[0].status.toLowerCase()}`}
                  </span>
                )}
              </Td>
              <Td className="text-xs whitespace-nowrap">{formatDateTime(e.createdAt)}</Td>
            </tr>
          );
        })}
      </tbody>
    </Table>
    {details && <EventDetails eventId={details} onClose={() => setDetails(null)} />}
    </>
  );
}

/** Exact decimal addition of two ETH strings (18 decimals) without floats. */
function addEth(a: string, b: string): string {
  const toWei = (s: string) => {
    const neg = s.startsWith("-");
    const [i, f = ""] = s.replace(/^-/, "").split(".");
    const v = BigInt(i || "0") * 10n ** 18n + BigInt((f + "0".repeat(18)).slice(0, 18));
    return neg ? -v : v;
  };
  const w = toWei(a) + toWei(b);
  const neg = w < 0n;
  const abs = neg ? -w : w;
  const frac = (abs % 10n ** 18n).toString().padStart(18, "0").replace(/0+$/, "");
  return `${neg ? "-" : ""}${abs / 10n ** 18n}${frac ? `.${frac}` : ""}`;
}

function TestEventForm({ onDone }: { onDone: () => void }) {
  const { env } = useEnvironment();
  const toast = useToast();
  const utils = trpc.useUtils();
  const [eventName, setEventName] = useState("");
  const [referrer, setReferrer] = useState("");
  const create = trpc.events.create.useMutation({
    onSuccess: (r) => {
      toast("success", r.queued ? "Event queued for processing" : `Event recorded (${r.status})`);
      void utils.events.list.invalidate();
      onDone();
    },
  });
  const errs = fieldErrors(create.error);
  function submit(e: FormEvent) {
    e.preventDefault();
    create.mutate({ environment: env, eventName: eventName.trim(), referrer: referrer.trim() || undefined, source: "dashboard" });
  }
  const top = formError(create.error, ["eventName", "referrer"]);
  return (
    <form onSubmit={submit} noValidate aria-label="Record an event" className="space-y-3">
      <div className="grid gap-3 sm:grid-cols-2">
        <Field label="Event name" error={errs.eventName}>
          {(p) => <Input {...p} name="eventName" value={eventName} onChange={(e) => setEventName(e.target.value)} placeholder="purchase" maxLength={100} />}
        </Field>
        <Field label="Referrer code (optional)" error={errs.referrer}>
          {(p) => <Input {...p} name="referrer" value={referrer} onChange={(e) => setReferrer(e.target.value)} maxLength={64} />}
        </Field>
      </div>
      {top && <p className="text-sm font-medium text-rose-600" role="alert">{top}</p>}
      <div className="flex justify-end gap-2">
        <Button variant="ghost" onClick={onDone}>
          Cancel
        </Button>
        <Button type="submit" loading={create.isPending}>
          Record event
        </Button>
      </div>
    </form>
  );
}

export function EventsPage() {
  const { env } = useEnvironment();
  // Recording an event may pay rewards: the owner or an admin only (members review).
  const { canChangeMoney } = useMe();
  const [status, setStatus] = useState<Status | "">("");
  const none = { eventName: "", campaign: "", from: "", to: "" };
  const [draft, setDraft] = useState(none);
  const [applied, setApplied] = useState(none);
  const [review, setReview] = useState<{ event: EventRow; decision: "PROCESSED" | "REJECTED" } | null>(null);
  const [creating, setCreating] = useState(false);
  // `to` is exclusive on the server; the date picker means "through that day".
  const dayAfter = (d: string) => new Date(Date.parse(`${d}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  const input = {
    environment: env,
    limit: 25,
    ...(status ? { status } : {}),
    ...(applied.eventName ? { eventName: applied.eventName } : {}),
    ...(applied.campaign ? { campaign: applied.campaign } : {}),
    ...(applied.from ? { from: applied.from } : {}),
    ...(applied.to ? { to: dayAfter(applied.to) } : {}),
  };
  const { cursors, add } = useCursors(JSON.stringify(input));
  const q = combinePages(trpc.useQueries((t) => cursors.map((cursor) => t.events.list({ ...input, ...(cursor ? { cursor } : {}) }, { refetchInterval: 10_000 }))), add);
  const rows = q.rows;
  const filtered = !!(status || Object.values(applied).some(Boolean));
  const setField = (k: keyof typeof none) => (e: { target: { value: string } }) => setDraft((d) => ({ ...d, [k]: e.target.value }));

  return (
    <>
      <PageHeader
        title="Events"
        description="Events your integration sent to /track. Flagged events wait for your review."
        actions={
          canChangeMoney && !creating && (
            <Button variant="secondary" onClick={() => setCreating(true)}>
              Record an event
            </Button>
          )
        }
      />
      <div className="space-y-6">
        {creating && (
          <Card title={`Record a ${env.toLowerCase()} event`} description="Runs through the same pipeline as /track.">
            <TestEventForm onDone={() => setCreating(false)} />
          </Card>
        )}
        <Card title="All events" actions={<ExportLink kind="events" query={{ ...input, limit: undefined }} />} bodyClassName="p-5 pt-0">
          <form
            className="grid gap-3 border-b border-slate-100 py-4 sm:grid-cols-3 sm:items-end lg:grid-cols-6"
            aria-label="Filter events"
            onSubmit={(e) => {
              e.preventDefault();
              setApplied({ eventName: draft.eventName.trim(), campaign: draft.campaign.trim(), from: draft.from, to: draft.to });
            }}
          >
            <Field label="Status">
              {(p) => (
                <Select {...p} name="status" value={status} onChange={(e) => setStatus(e.target.value as Status | "")}>
                  <option value="">All statuses</option>
                  {STATUSES.map((s) => (
                    <option key={s} value={s}>
                      {s.charAt(0) + s.slice(1).toLowerCase()}
                    </option>
                  ))}
                </Select>
              )}
            </Field>
            <Field label="Event name">{(p) => <Input {...p} name="eventName" value={draft.eventName} onChange={setField("eventName")} placeholder="Any" maxLength={100} />}</Field>
            <Field label="Campaign">{(p) => <Input {...p} name="campaign" value={draft.campaign} onChange={setField("campaign")} placeholder="Any" maxLength={100} />}</Field>
            <Field label="From">{(p) => <Input {...p} name="from" type="date" value={draft.from} onChange={setField("from")} />}</Field>
            <Field label="Through">{(p) => <Input {...p} name="to" type="date" value={draft.to} min={draft.from || undefined} onChange={setField("to")} />}</Field>
            <div className="flex gap-2">
              <Button type="submit" variant="secondary">
                Apply
              </Button>
              {filtered && (
                <Button
                  variant="ghost"
                  onClick={() => {
                    setStatus("");
                    setDraft(none);
                    setApplied(none);
                  }}
                >
                  Clear
                </Button>
              )}
            </div>
          </form>
          <DataList query={q} isEmpty={rows.length === 0} itemsLabel="events" skeleton={5} empty={
            <EmptyState icon={<Icon name="bolt" className="h-8 w-8" />} title={filtered ? "No events match these filters" : `No ${env.toLowerCase()} events yet`}>
                {filtered ? "Try another status or clear the filters." : "Send an event to /track with a key of this environment and it shows up here."}
              </EmptyState>
          }>
            <EventsTable events={rows} onReview={(event, decision) => setReview({ event, decision })} />
          </DataList>
        </Card>
      </div>
      {review && <ReviewDialog event={review.event} decision={review.decision} onClose={() => setReview(null)} />}
    </>
  );
}
