"use client";
// Integrations: connect Stripe per environment (the webhook URL to paste into Stripe, the events
// to select there, the signing secret), change or remove the connection, and Stripe's recent
// deliveries with what became of each. Owners and admins change it; members read.
import Link from "next/link";
import { useState, type FormEvent } from "react";
import { STRIPE_EVENT_TYPES } from "@/server/shared/stripe-events";
import { CopyButton } from "../copy-button";
import { useEnvironment } from "../environment";
import { contractError, errorFor, fieldErrors, formError } from "../errors";
import { formatDateTime, timeAgo } from "../format";
import { Icon } from "../icons";
import { combinePages, useCursors } from "../paging";
import { useMe } from "../shell";
import { useToast } from "../toast";
import { trpc, type RouterOutputs } from "../trpc";
import { Badge, Button, Card, DataList, Dialog, EmptyState, Field, Input, Notice, PageHeader, Td, Th, Toggle } from "../ui";

type Stripe = RouterOutputs["integrations"]["getStripe"];
const OUTCOME_COLOR = { PROCESSED: "green", IGNORED: "gray", FAILED: "red" } as const;

function ConnectForm({ current, onDone }: { current: Stripe | null; onDone: () => void }) {
  const { env } = useEnvironment();
  const toast = useToast();
  const utils = trpc.useUtils();
  const [secret, setSecret] = useState("");
  const [eventName, setEventName] = useState(current?.purchaseEventName ?? "purchase");
  const [enabled, setEnabled] = useState(current?.enabled ?? true);
  const connect = trpc.integrations.connectStripe.useMutation({
    onSuccess: () => {
      void utils.integrations.getStripe.invalidate();
      toast("success", current ? "Stripe connection saved" : "Stripe connected");
      setSecret("");
      onDone();
    },
  });
  const errs = fieldErrors(connect.error);
  const top = formError(connect.error, ["webhookSecret", "purchaseEventName"]);
  function submit(e: FormEvent) {
    e.preventDefault();
    connect.mutate({ environment: env, webhookSecret: secret.trim(), purchaseEventName: eventName.trim() || undefined, enabled });
  }
  return (
    <form onSubmit={submit} className="space-y-4" aria-label={current ? "Change the Stripe connection" : "Connect Stripe"}>
      {top && <Notice tone="danger">{top}</Notice>}
      <div className="grid gap-4 sm:grid-cols-2">
        <Field label="Stripe signing secret" error={errorFor(errs, "webhookSecret")} hint="In Stripe: Developers → Webhooks → your endpoint → Signing secret (whsec_…).">
          {(p) => <Input {...p} name="webhookSecret" type="password" autoComplete="off" required value={secret} onChange={(e) => setSecret(e.target.value)} placeholder="whsec_…" />}
        </Field>
        <Field label="Event name of a paid invoice" error={errorFor(errs, "purchaseEventName")} hint="Your commission rules match this event name.">
          {(p) => <Input {...p} name="purchaseEventName" value={eventName} onChange={(e) => setEventName(e.target.value)} maxLength={100} />}
        </Field>
      </div>
      {current && <Toggle name="enabled" checked={enabled} onChange={setEnabled} label="Enabled" description="A disabled connection records Stripe's deliveries as IGNORED and earns nothing." />}
      <div className="flex justify-end gap-2">
        {current && (
          <Button variant="ghost" onClick={onDone}>
            Cancel
          </Button>
        )}
        <Button type="submit" loading={connect.isPending}>
          {current ? "Save" : "Connect Stripe"}
        </Button>
      </div>
    </form>
  );
}

function SetupSteps({ webhookUrl }: { webhookUrl: string | null }) {
  return (
    <ol className="list-decimal space-y-2 pl-5 text-sm text-slate-700">
      <li>In Stripe&apos;s dashboard, open Developers → Webhooks and add an endpoint.</li>
      <li>
        Paste the webhook URL{" "}
        {webhookUrl ? (
          <span className="inline-flex flex-wrap items-center gap-2">
            <code className="break-all rounded bg-slate-100 px-1.5 py-0.5 text-xs" data-testid="stripe-webhook-url">{webhookUrl}</code>
            <CopyButton text={webhookUrl} label="Copy URL" />
          </span>
        ) : (
          "(shown here once connected)."
        )}
      </li>
      <li>
        Select these events: <span className="font-mono text-xs">{STRIPE_EVENT_TYPES.join(", ")}</span>.
      </li>
      <li>Copy the endpoint&apos;s signing secret (whsec_…) into the form here.</li>
      <li>
        Pass the referral code at checkout as <span className="font-mono text-xs">client_reference_id</span> (or <span className="font-mono text-xs">metadata.referralCode</span>): paid invoices then earn, refunds reverse.
      </li>
    </ol>
  );
}

function Connection({ stripe, canChange }: { stripe: Stripe; canChange: boolean }) {
  const toast = useToast();
  const utils = trpc.useUtils();
  const [editing, setEditing] = useState(false);
  const [removing, setRemoving] = useState(false);
  const remove = trpc.integrations.disconnectStripe.useMutation({
    onSuccess: () => {
      void utils.integrations.getStripe.invalidate();
      toast("success", "Stripe disconnected");
      setRemoving(false);
    },
    onError: (e) => toast("error", formError(e) ?? "Could not disconnect"),
  });
  return (
    <div className="space-y-4">
      <dl className="grid gap-4 text-sm sm:grid-cols-4">
        <div>
          <dt className="text-slate-500">Status</dt>
          <dd><Badge color={stripe.enabled ? "green" : "red"}>{stripe.enabled ? "Connected" : "Disabled"}</Badge></dd>
        </div>
        <div>
          <dt className="text-slate-500">Signing secret</dt>
          <dd className="font-mono">whsec_…{stripe.secretLast4}</dd>
        </div>
        <div>
          <dt className="text-slate-500">Paid invoices record</dt>
          <dd className="font-mono">{stripe.purchaseEventName}</dd>
        </div>
        <div>
          <dt className="text-slate-500">Last delivery</dt>
          <dd>{stripe.lastEventAt ? timeAgo(stripe.lastEventAt) : "None yet"}</dd>
        </div>
      </dl>
      <SetupSteps webhookUrl={stripe.webhookUrl} />
      {canChange && !editing && (
        <div className="flex flex-wrap justify-end gap-2">
          <Button variant="secondary" size="sm" onClick={() => setEditing(true)}>
            Change the connection
          </Button>
          <Button variant="secondary" size="sm" className="!text-rose-700" onClick={() => setRemoving(true)}>
            Disconnect
          </Button>
        </div>
      )}
      {editing && <ConnectForm current={stripe} onDone={() => setEditing(false)} />}
      {removing && (
        <Dialog
          open
          onClose={() => setRemoving(false)}
          title="Disconnect Stripe?"
          footer={
            <>
              <Button variant="ghost" onClick={() => setRemoving(false)}>
                Cancel
              </Button>
              <Button variant="danger" loading={remove.isPending} onClick={() => remove.mutate({ environment: stripe.environment })}>
                Disconnect
              </Button>
            </>
          }
        >
          <p className="text-sm text-slate-700">Its webhook URL stops answering (Stripe will see 404) and its delivery log is removed. Invoices already earned stay earned, and are never earned twice.</p>
        </Dialog>
      )}
    </div>
  );
}

function Deliveries() {
  const { env } = useEnvironment();
  const { cursors, add } = useCursors(env);
  const pages = trpc.useQueries((t) => cursors.map((cursor) => t.integrations.stripeEvents({ environment: env, limit: 25, cursor }, { refetchInterval: 5_000 })));
  const list = combinePages(pages, add);
  return (
    <Card title="Recent Stripe deliveries" bodyClassName="p-5 pt-0">
      <DataList query={list} isEmpty={list.rows.length === 0} itemsLabel="deliveries" skeleton={2} empty={<EmptyState title="No deliveries yet">Send a test event from Stripe (or `stripe trigger invoice.paid` with Stripe&apos;s CLI).</EmptyState>} label="Stripe deliveries" head={
        <>
          <Th>Received</Th>
          <Th>Stripe event</Th>
          <Th>Outcome</Th>
          <Th>Recorded</Th>
        </>
      }>
        {list.rows.map((d) => (
          <tr key={d.stripeEventId} data-testid="stripe-delivery">
            <Td className="text-xs whitespace-nowrap">{formatDateTime(d.receivedAt)}</Td>
            <Td>
              <div className="font-mono text-xs text-slate-900">{d.type}</div>
              <div className="font-mono text-[11px] text-slate-500">{d.stripeEventId}</div>
            </Td>
            <Td>
              <Badge color={OUTCOME_COLOR[d.outcome]}>{d.outcome}</Badge>
              {d.reason && <div className="mt-1 max-w-72 break-words text-xs text-slate-600">{d.reason}</div>}
            </Td>
            <Td className="text-xs">
              {d.eventId && <div className="font-mono">event {d.eventId}</div>}
              {d.referralId ? <Link className="text-indigo-700 hover:underline" href={`/dashboard/referrals/${d.referralId}`}>Open the referral</Link> : !d.eventId && "—"}
            </Td>
          </tr>
        ))}
      </DataList>
    </Card>
  );
}

export function IntegrationsPage() {
  const { env } = useEnvironment();
  const { canChangeMoney } = useMe();
  // Polled like the deliveries: "Last delivery" follows them.
  const stripe = trpc.integrations.getStripe.useQuery({ environment: env }, { retry: false, refetchInterval: (q) => (q.state.data ? 5_000 : false) });
  const notConnected = contractError(stripe.error)?.code === "NOT_FOUND";
  return (
    <>
      <PageHeader title="Integrations" description={`Purchases and refunds arrive on their own from your payment provider. Showing the ${env === "TEST" ? "test" : "live"} connection.`} />
      {!canChangeMoney && <Notice tone="info">Only the owner or an admin can connect or change an integration; members see its state and deliveries.</Notice>}
      <div className="space-y-6">
        <Card title="Stripe" description={`Paid invoices earn commissions, refunds and disputes reverse them (${env === "TEST" ? "test mode events" : "live mode events"}).`}>
          {stripe.isLoading ? (
            <p className="text-sm text-slate-500">Loading…</p>
          ) : stripe.data ? (
            <Connection stripe={stripe.data} canChange={canChangeMoney} />
          ) : notConnected ? (
            <div className="space-y-4">
              <SetupSteps webhookUrl={null} />
              {canChangeMoney ? <ConnectForm current={null} onDone={() => {}} /> : <EmptyState icon={<Icon name="plug" className="h-8 w-8" />} title="Stripe is not connected" />}
            </div>
          ) : (
            <Notice tone="danger">{formError(stripe.error) ?? "Could not load the connection"}</Notice>
          )}
        </Card>
        {stripe.data && <Deliveries />}
      </div>
    </>
  );
}
