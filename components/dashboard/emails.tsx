"use client";
// Emails: what the service sends (or would send: without SMTP_URL, NOT_CONFIGURED), each message
// previewed as its recipient sees it (the HTML in a sandboxed frame, the plain text beside it);
// which referrer emails the business sends and as whom; and the staff emails you receive.
import { useState } from "react";
import { useEnvironment } from "../environment";
import { formError } from "../errors";
import { formatDateTime } from "../format";
import { combinePages, useCursors } from "../paging";
import { useToast } from "../toast";
import { trpc } from "../trpc";
import { Badge, Button, Card, DataList, Dialog, Field, Input, Notice, PageHeader, Select, Td, Th, Toggle } from "../ui";

const REFERRER: Array<[kind: "REWARD_EARNED" | "PAYOUT_SENT" | "PAYOUT_FAILED" | "WALLET_MISSING" | "REWARD_REVERSED", label: string, when: string]> = [
  ["REWARD_EARNED", "Reward earned", "Within a minute of a reward, then at most one digest an hour"],
  ["PAYOUT_SENT", "Payout sent", "Amount and transaction of each payout"],
  ["PAYOUT_FAILED", "Payout failed", "Why, and what to do (e.g. change the wallet)"],
  ["WALLET_MISSING", "Wallet missing", "Owed at least the minimum payout with no wallet: at most weekly"],
  ["REWARD_REVERSED", "Reward reversed", "When a reward is taken back"],
];
const STAFF: Array<[kind: "LOW_POOL" | "REVIEW_QUEUE" | "PAYOUT_RUN_FAILED" | "WEBHOOK_DISABLED" | "STRIPE_FAILED", label: string]> = [
  ["LOW_POOL", "The reward pool is low"],
  ["REVIEW_QUEUE", "Events wait for review"],
  ["PAYOUT_RUN_FAILED", "A payout failed"],
  ["WEBHOOK_DISABLED", "A webhook endpoint was disabled"],
  ["STRIPE_FAILED", "The Stripe connection failed"],
];
const STATUS_COLOR = { QUEUED: "gray", SENT: "green", FAILED: "red", SUPPRESSED: "amber", NOT_CONFIGURED: "amber" } as const;

type Save = ReturnType<typeof trpc.emails.updateNotifications.useMutation>;

/** The sender's name and reply-to address; keyed by the saved values, so it starts from them. */
function SenderForm({ environment, saved, save }: { environment: "TEST" | "LIVE"; saved: { fromName: string | null; replyTo: string | null }; save: Save }) {
  const [fromName, setFromName] = useState(saved.fromName ?? "");
  const [replyTo, setReplyTo] = useState(saved.replyTo ?? "");
  return (
    <form
      className="mt-2 grid gap-3 sm:grid-cols-3"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate({ environment, fromName: fromName.trim() || null, replyTo: replyTo.trim() || null });
      }}
    >
      <Field label="Sender name">{(p) => <Input {...p} value={fromName} maxLength={100} placeholder="Your shop" onChange={(e) => setFromName(e.target.value)} />}</Field>
      <Field label="Reply-to address">{(p) => <Input {...p} type="email" value={replyTo} maxLength={254} placeholder="help@example.com" onChange={(e) => setReplyTo(e.target.value)} />}</Field>
      <div className="flex items-end">
        <Button type="submit" variant="secondary" loading={save.isPending}>
          Save sender
        </Button>
      </div>
    </form>
  );
}

function BusinessSettings({ environment }: { environment: "TEST" | "LIVE" }) {
  const toast = useToast();
  const utils = trpc.useUtils();
  const q = trpc.emails.notifications.useQuery({ environment });
  const save = trpc.emails.updateNotifications.useMutation({
    onSuccess: (d) => {
      utils.emails.notifications.setData({ environment }, d);
      toast("success", "Email settings saved");
    },
  });
  const error = save.error ? (formError(save.error, ["fromName", "replyTo"]) ?? save.error.message) : null;
  return (
    <Card title="Emails to referrers" description={`Which emails your ${environment} referrers receive (each can also unsubscribe), and who they come from. Owners and admins can change these.`}>
      {REFERRER.map(([kind, label, when]) => (
        <Toggle key={kind} label={label} description={when} checked={q.data?.referrer[kind] ?? true} disabled={!q.data || save.isPending} onChange={(v) => save.mutate({ environment, referrer: { [kind]: v } })} />
      ))}
      {q.data ? <SenderForm key={`${environment}:${q.data.fromName}:${q.data.replyTo}`} environment={environment} saved={q.data} save={save} /> : null}
      {error ? (
        <p className="mt-2 text-sm text-red-700" role="alert">
          {error}
        </p>
      ) : null}
    </Card>
  );
}

function MySettings() {
  const utils = trpc.useUtils();
  const q = trpc.emails.myNotifications.useQuery();
  const save = trpc.emails.updateMyNotifications.useMutation({ onSuccess: (d) => utils.emails.myNotifications.setData(undefined, d) });
  return (
    <Card title="Emails to you" description="The staff emails you receive (your own choice; each member chooses theirs).">
      {STAFF.map(([kind, label]) => (
        <Toggle key={kind} label={label} checked={q.data?.[kind] ?? true} disabled={!q.data || save.isPending} onChange={(v) => save.mutate({ [kind]: v })} />
      ))}
    </Card>
  );
}

function Preview({ emailId, onClose }: { emailId: string | null; onClose: () => void }) {
  const q = trpc.emails.get.useQuery({ emailId: emailId ?? "" }, { enabled: !!emailId });
  const e = q.data;
  return (
    <Dialog open={!!emailId} onClose={onClose} title="Email preview" footer={<Button variant="secondary" onClick={onClose}>Close</Button>}>
      {!e ? (
        <p>Loading…</p>
      ) : (
        <>
          <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-xs break-all">
            <dt className="font-medium">To</dt>
            <dd>{e.to}</dd>
            <dt className="font-medium">Subject</dt>
            <dd data-testid="preview-subject">{e.subject}</dd>
            <dt className="font-medium">Status</dt>
            <dd>{e.status}{e.error ? `: ${e.error}` : ""}</dd>
          </dl>
          {e.html ? (
            <iframe title="The email as its recipient sees it" sandbox="" srcDoc={e.html} className="h-80 w-full rounded border border-slate-200 bg-white" />
          ) : (
            <p className="text-slate-600">Not rendered yet: it is rendered when it is sent.</p>
          )}
          {e.text ? (
            <details>
              <summary className="cursor-pointer text-slate-700">Plain text</summary>
              <pre className="mt-1 max-h-60 overflow-auto text-xs whitespace-pre-wrap">{e.text}</pre>
            </details>
          ) : null}
        </>
      )}
    </Dialog>
  );
}

function EmailLog({ environment }: { environment: "TEST" | "LIVE" }) {
  const [filters, setFilters] = useState<{ status?: keyof typeof STATUS_COLOR; kind?: string }>({});
  const [open, setOpen] = useState<string | null>(null);
  const { cursors, add } = useCursors(JSON.stringify({ environment, ...filters }));
  const list = combinePages(
    trpc.useQueries((t) => cursors.map((cursor) => t.emails.list({ environment, ...(filters.status ? { status: filters.status } : {}), ...(filters.kind ? { kind: filters.kind as never } : {}), limit: 50, ...(cursor ? { cursor } : {}) }, { retry: false }))),
    add,
  );
  const rows = list.rows;
  return (
    <Card title="Sent and queued" className="mt-4" actions={
      <div className="flex gap-2">
        <Select aria-label="Status" value={filters.status ?? ""} onChange={(e) => setFilters({ ...filters, status: (e.target.value || undefined) as keyof typeof STATUS_COLOR | undefined })}>
          <option value="">Any status</option>
          {Object.keys(STATUS_COLOR).map((s) => <option key={s} value={s}>{s}</option>)}
        </Select>
        <Select aria-label="Kind" value={filters.kind ?? ""} onChange={(e) => setFilters({ ...filters, kind: e.target.value || undefined })}>
          <option value="">Any kind</option>
          {[...REFERRER.map((r) => r[0]), "PORTAL_SIGN_IN", ...STAFF.map((s) => s[0])].map((k) => <option key={k} value={k}>{k}</option>)}
        </Select>
      </div>
    }>
      <DataList query={list} isEmpty={rows.length === 0} empty={<p className="p-4 text-sm text-slate-600">No email yet. Emails appear here as rewards are earned, payouts sent and alerts raised.</p>} itemsLabel="emails" label="Emails" head={
        <><Th>When</Th><Th>Kind</Th><Th>To</Th><Th>Subject</Th><Th>Status</Th><Th><span className="sr-only">Preview</span></Th></>
      }>
        {rows.map((e) => (
          <tr key={e.emailId} data-testid="email-row">
            <Td className="whitespace-nowrap">{formatDateTime(e.createdAt)}</Td>
            <Td><code className="text-xs">{e.kind}</code></Td>
            <Td className="min-w-48 break-all">{e.to}</Td>
            <Td className="min-w-56">{e.subject}</Td>
            <Td><Badge color={STATUS_COLOR[e.status]}>{e.status}</Badge>{e.error ? <p className="mt-1 max-w-xs text-xs text-slate-500">{e.error}</p> : null}</Td>
            <Td><Button size="sm" variant="secondary" onClick={() => setOpen(e.emailId)}>Preview</Button></Td>
          </tr>
        ))}
      </DataList>
      <Preview emailId={open} onClose={() => setOpen(null)} />
    </Card>
  );
}

export function EmailsPage() {
  const { env, ready } = useEnvironment();
  return (
    <>
      <PageHeader title="Emails" description="What your referrers and your team are told, and when. Without SMTP_URL nothing leaves: messages are kept here as NOT_CONFIGURED so you can see what would be sent." />
      <Notice title="Where emails leave from">The server sends through the SMTP server in its SMTP_URL, as EMAIL_FROM (docs/email.md). SPF and DKIM records for the sending domain are set by the owner of that domain.</Notice>
      {ready ? (
        <>
          <div className="mt-4 grid gap-4 lg:grid-cols-2">
            <BusinessSettings environment={env} />
            <MySettings />
          </div>
          <EmailLog environment={env} />
        </>
      ) : null}
    </>
  );
}
