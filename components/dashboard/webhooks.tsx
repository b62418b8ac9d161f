"use client";
// Webhooks: add endpoints (the signing secret shown once), edit, disable, send a test event,
// rotate the secret with an overlap, read the delivery log and retry a delivery.
import { useState, type FormEvent } from "react";
import type { Environment } from "@/server/shared/environment";
import { useEnvironment } from "../environment";
import { errorFor, fieldErrors, formError } from "../errors";
import { formatDateTime, timeAgo } from "../format";
import { Icon } from "../icons";
import { combinePages, useCursors } from "../paging";
import { useMe } from "../shell";
import { useToast } from "../toast";
import { trpc, type RouterOutputs } from "../trpc";
import { Badge, Button, Card, ConfirmDialog, DataList, EmptyState, Field, Input, Notice, PageHeader, Select, Td, Th, Toggle } from "../ui";
import { SecretReveal } from "./secret-reveal";

type Webhook = RouterOutputs["webhooks"]["list"]["data"][number];
type EventType = RouterOutputs["webhooks"]["list"]["eventTypes"][number];

const OVERLAP_OPTIONS = [
  { value: 0, label: "None (old secret stops now)" },
  { value: 3600, label: "1 hour" },
  { value: 86400, label: "24 hours (default)" },
];

function EventPicker({ all, value, onChange }: { all: readonly EventType[]; value: EventType[]; onChange: (v: EventType[]) => void }) {
  return (
    <fieldset className="space-y-2">
      <legend className="text-sm font-medium text-slate-700">Events</legend>
      <p className="text-xs text-slate-500">None selected: every event type.</p>
      <div className="grid gap-1.5 sm:grid-cols-3">
        {all.map((t) => (
          <label key={t} className="flex items-center gap-2 text-sm">
            <input type="checkbox" name="events" value={t} checked={value.includes(t)} onChange={(e) => onChange(e.target.checked ? [...value, t] : value.filter((x) => x !== t))} />
            <span className="font-mono text-xs">{t}</span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}

function CreateForm({ eventTypes, onCreated, onCancel }: { eventTypes: readonly EventType[]; onCreated: (w: RouterOutputs["webhooks"]["create"]) => void; onCancel: () => void }) {
  const { env } = useEnvironment();
  const toast = useToast();
  const utils = trpc.useUtils();
  const [environment, setEnvironment] = useState<Environment>(env);
  const [url, setUrl] = useState("");
  const [description, setDescription] = useState("");
  const [events, setEvents] = useState<EventType[]>([]);
  const create = trpc.webhooks.create.useMutation({
    onSuccess: (w) => {
      void utils.webhooks.list.invalidate();
      toast("success", "Endpoint added");
      onCreated(w);
    },
  });
  const errs = fieldErrors(create.error);
  const top = formError(create.error, ["url", "environment", "events", "description"]);
  function submit(e: FormEvent) {
    e.preventDefault();
    create.mutate({ url: url.trim(), environment, events, description: description.trim() || undefined });
  }
  return (
    <form onSubmit={submit} className="space-y-4" aria-label="Add webhook endpoint">
      {top && <Notice tone="danger">{top}</Notice>}
      <div className="grid gap-4 sm:grid-cols-3">
        <Field label="Endpoint URL" error={errorFor(errs, "url")} className="sm:col-span-2" hint={environment === "LIVE" ? "LIVE: https and a public address." : "TEST may be http and local, e.g. http://localhost:4000/hooks."}>
          {(p) => <Input {...p} name="url" type="url" required value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://api.example.com/webhooks/referrals" />}
        </Field>
        <Field label="Environment" error={errorFor(errs, "environment")}>
          {(p) => (
            <Select {...p} name="environment" value={environment} onChange={(e) => setEnvironment(e.target.value as Environment)}>
              <option value="TEST">Test</option>
              <option value="LIVE">Live</option>
            </Select>
          )}
        </Field>
      </div>
      <Field label="Description (optional)" error={errorFor(errs, "description")}>
        {(p) => <Input {...p} name="description" value={description} onChange={(e) => setDescription(e.target.value)} maxLength={500} placeholder="e.g. CRM sync" />}
      </Field>
      <EventPicker all={eventTypes} value={events} onChange={setEvents} />
      <div className="flex justify-end gap-2">
        <Button variant="ghost" onClick={onCancel}>
          Cancel
        </Button>
        <Button type="submit" loading={create.isPending}>
          Add endpoint
        </Button>
      </div>
    </form>
  );
}

function EditDialog({ hook, eventTypes, onClose }: { hook: Webhook; eventTypes: readonly EventType[]; onClose: () => void }) {
  const toast = useToast();
  const utils = trpc.useUtils();
  const [url, setUrl] = useState(hook.url);
  const [description, setDescription] = useState(hook.description ?? "");
  const [events, setEvents] = useState<EventType[]>(hook.events as EventType[]);
  const [enabled, setEnabled] = useState(hook.enabled);
  const update = trpc.webhooks.update.useMutation({
    onSuccess: () => {
      void utils.webhooks.list.invalidate();
      toast("success", "Endpoint saved");
      onClose();
    },
  });
  const errs = fieldErrors(update.error);
  return (
    <ConfirmDialog
      onClose={onClose}
      title="Edit endpoint"
      confirmLabel="Save"
      tone="primary"
      pending={update.isPending}
      error={errorFor(errs, "url") ? null : formError(update.error)}
      onConfirm={() => update.mutate({ webhookId: hook.webhookId, url: url.trim(), description: description.trim() || null, events, enabled })}
    >
      <Field label="Endpoint URL" error={errorFor(errs, "url")}>
        {(p) => <Input {...p} name="url" type="url" value={url} onChange={(e) => setUrl(e.target.value)} />}
      </Field>
      <Field label="Description">{(p) => <Input {...p} name="description" value={description} onChange={(e) => setDescription(e.target.value)} maxLength={500} />}</Field>
      <EventPicker all={eventTypes} value={events} onChange={setEvents} />
      <Toggle name="enabled" checked={enabled} onChange={setEnabled} label="Enabled" description="A disabled endpoint receives nothing until you enable it again." />
    </ConfirmDialog>
  );
}

function RotateDialog({ hook, onClose }: { hook: Webhook; onClose: () => void }) {
  const [overlap, setOverlap] = useState(86400);
  const toast = useToast();
  const utils = trpc.useUtils();
  const rotate = trpc.webhooks.rotateSecret.useMutation({
    onSuccess: () => {
      void utils.webhooks.list.invalidate();
      toast("success", "Secret rotated: copy the new one");
    },
  });
  return (
    <ConfirmDialog
      onClose={onClose}
      title="Rotate signing secret"
      confirmLabel="Rotate secret"
      tone="primary"
      pending={rotate.isPending}
      error={formError(rotate.error)}
      onConfirm={() => rotate.mutate({ webhookId: hook.webhookId, overlapSeconds: overlap })}
      done={
        rotate.data && {
          title: "New signing secret",
          children: (
            <SecretReveal
              secret={rotate.data.secret}
              extra={rotate.data.previousSecretExpiresAt && <p className="text-xs text-slate-600">The old secret also signs deliveries until {formatDateTime(rotate.data.previousSecretExpiresAt)}.</p>}
            />
          ),
        }
      }
    >
      <p>A new secret signs every delivery from now on. During the overlap the old one signs too (a second signature), so you can deploy the new secret without dropping events.</p>
      <Field label="Overlap">
        {(p) => (
          <Select {...p} name="overlapSeconds" value={overlap} onChange={(e) => setOverlap(Number(e.target.value))}>
            {OVERLAP_OPTIONS.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </Select>
        )}
      </Field>
    </ConfirmDialog>
  );
}

function DeleteDialog({ hook, onClose }: { hook: Webhook; onClose: () => void }) {
  const toast = useToast();
  const utils = trpc.useUtils();
  const del = trpc.webhooks.delete.useMutation({
    onSuccess: () => {
      void utils.webhooks.list.invalidate();
      toast("success", "Endpoint deleted");
      onClose();
    },
    onError: (e) => toast("error", formError(e) ?? "Could not delete the endpoint"),
  });
  return (
    <ConfirmDialog onClose={onClose} title="Delete this endpoint?" confirmLabel="Delete endpoint" pending={del.isPending} onConfirm={() => del.mutate({ webhookId: hook.webhookId })}>
      <p>
        <span className="font-mono text-xs">{hook.url}</span> will receive nothing more, and its delivery log is deleted with it.
      </p>
    </ConfirmDialog>
  );
}

function Deliveries({ hook, onClose }: { hook: Webhook; onClose: () => void }) {
  const toast = useToast();
  const utils = trpc.useUtils();
  const { cursors, add } = useCursors(hook.webhookId);
  const q = combinePages(trpc.useQueries((t) => cursors.map((cursor) => t.webhooks.deliveries({ webhookId: hook.webhookId, limit: 25, ...(cursor ? { cursor } : {}) }, { refetchInterval: 5_000 }))), add);
  const retry = trpc.webhooks.retryDelivery.useMutation({
    onSuccess: () => {
      toast("success", "Sent again: the result appears here in a moment");
      setTimeout(() => void utils.webhooks.deliveries.invalidate(), 1500);
    },
    onError: (e) => toast("error", formError(e) ?? "Could not retry"),
  });
  return (
    <Card
      title="Delivery log"
      description={<span className="font-mono text-xs">{hook.url}</span>}
      actions={
        <Button variant="ghost" size="sm" onClick={onClose}>
          Close
        </Button>
      }
      bodyClassName="p-5 pt-0"
    >
      <DataList query={q} isEmpty={q.rows.length === 0} itemsLabel="deliveries" skeleton={2} empty={<EmptyState title="No deliveries yet">Send a test event to see one here.</EmptyState>} label="Deliveries" head={
        <>
          <Th>Event</Th>
          <Th>Result</Th>
          <Th>Duration</Th>
          <Th>Error / next retry</Th>
          <Th>When</Th>
          <Th className="text-right">
            <span className="sr-only">Actions</span>
          </Th>
        </>
      }>
        {q.rows.map((d) => (
          <tr key={d.deliveryId} data-testid="webhook-delivery-row">
            <Td>
              <div className="font-mono text-xs">{d.event}</div>
              <div className="font-mono text-[11px] text-slate-500" title="webhook-id">
                {d.messageId} · #{d.attempt}
                {d.manual ? " · manual" : ""}
              </div>
            </Td>
            <Td>
              <Badge color={d.success ? "green" : "red"}>{d.statusCode ?? (d.success ? "OK" : "failed")}</Badge>
            </Td>
            <Td className="text-xs whitespace-nowrap">{d.durationMs} ms</Td>
            <Td className="max-w-72 text-xs">
              {d.error && <div className="truncate text-rose-700" title={d.error}>{d.error}</div>}
              {d.nextRetryAt && <div className="text-slate-500">Next retry {formatDateTime(d.nextRetryAt)}</div>}
              {!d.error && !d.nextRetryAt && <span className="text-slate-500">—</span>}
            </Td>
            <Td className="text-xs whitespace-nowrap">{timeAgo(d.createdAt)}</Td>
            <Td className="text-right">
              <Button variant="secondary" size="sm" loading={retry.isPending && retry.variables?.deliveryId === d.deliveryId} onClick={() => retry.mutate({ webhookId: hook.webhookId, deliveryId: d.deliveryId })}>
                Retry
              </Button>
            </Td>
          </tr>
        ))}
      </DataList>
    </Card>
  );
}

export function WebhooksPage() {
  const { env } = useEnvironment();
  const { isOwner } = useMe();
  const toast = useToast();
  const utils = trpc.useUtils();
  const hooks = trpc.webhooks.list.useQuery({ environment: env }, { refetchInterval: 10_000 });
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<RouterOutputs["webhooks"]["create"] | null>(null);
  const [editing, setEditing] = useState<Webhook | null>(null);
  const [rotating, setRotating] = useState<Webhook | null>(null);
  const [deleting, setDeleting] = useState<Webhook | null>(null);
  const [logOf, setLogOf] = useState<Webhook | null>(null);
  const test = trpc.webhooks.test.useMutation({
    onSuccess: () => toast("success", "Test event queued: see the delivery log"),
    onError: (e) => toast("error", formError(e) ?? "Could not send the test event"),
  });
  const toggle = trpc.webhooks.update.useMutation({
    onSuccess: (w) => {
      void utils.webhooks.list.invalidate();
      toast("success", w.enabled ? "Endpoint enabled" : "Endpoint disabled");
    },
    onError: (e) => toast("error", formError(e) ?? "Could not change the endpoint"),
  });
  const list = hooks.data?.data ?? [];
  const eventTypes = hooks.data?.eventTypes ?? [];
  const autoDisabled = list.filter((w) => !w.enabled && w.disabledReason);

  return (
    <>
      <PageHeader
        title="Webhooks"
        description={`Signed HTTP notifications of referrals, rewards, reviews and funding (Standard Webhooks). Showing ${env === "TEST" ? "test" : "live"} endpoints.`}
        actions={
          isOwner &&
          !creating && (
            <Button
              onClick={() => {
                setCreated(null);
                setCreating(true);
              }}
            >
              Add endpoint
            </Button>
          )
        }
      />
      {!isOwner && <Notice tone="info">Only the owner can add, edit, rotate or delete endpoints; members can send tests and retry deliveries.</Notice>}
      <div className="space-y-6">
        {autoDisabled.map((w) => (
          <Notice key={w.webhookId} tone="danger" title="Endpoint disabled after repeated failures">
            <span className="font-mono text-xs">{w.url}</span>: {w.disabledReason}. Fix the receiver, then enable it again and retry what it missed from the delivery log.
          </Notice>
        ))}
        {creating && (
          <Card title="New endpoint">
            <CreateForm
              eventTypes={eventTypes}
              onCancel={() => setCreating(false)}
              onCreated={(w) => {
                setCreated(w);
                setCreating(false);
              }}
            />
          </Card>
        )}
        {created && (
          <Card title="Signing secret" actions={<Button variant="ghost" size="sm" onClick={() => setCreated(null)}>I&apos;ve copied it</Button>}>
            <SecretReveal secret={created.secret} extra={<p className="text-xs text-slate-600">Verify each delivery with it: <code>verifyWebhook(rawBody, headers, secret)</code> from the SDK, or any Standard Webhooks library.</p>} />
          </Card>
        )}
        <Card bodyClassName="p-5 pt-0" title={`${env === "TEST" ? "Test" : "Live"} endpoints`}>
          <DataList query={hooks} isEmpty={list.length === 0} itemsLabel="endpoints" skeleton={2} empty={
            <EmptyState icon={<Icon name="pulse" className="h-8 w-8" />} title={`No ${env.toLowerCase()} endpoints yet`} action={isOwner && <Button onClick={() => setCreating(true)}>Add an endpoint</Button>}>
              Add an endpoint to be told when referrals and rewards happen.
            </EmptyState>
          } label="Webhook endpoints" head={
            <>
              <Th>Endpoint</Th>
              <Th>Events</Th>
              <Th>Status</Th>
              <Th>Last success</Th>
              <Th className="text-right">
                <span className="sr-only">Actions</span>
              </Th>
            </>
          }>
            {list.map((w) => (
              <tr key={w.webhookId} data-testid="webhook-row" data-webhook-id={w.webhookId}>
                <Td className="max-w-80">
                  <div className="truncate font-mono text-xs text-slate-900" title={w.url}>{w.url}</div>
                  {w.description && <div className="text-xs text-slate-500">{w.description}</div>}
                  <div className="font-mono text-[11px] text-slate-500">{w.secretPrefix}…</div>
                  {w.previousSecretExpiresAt && <div className="text-xs text-amber-700">Old secret signs until {formatDateTime(w.previousSecretExpiresAt)}</div>}
                </Td>
                <Td className="max-w-56 text-xs">{w.events.length ? w.events.join(", ") : "All events"}</Td>
                <Td>
                  <Badge color={w.enabled ? (w.failingSince ? "amber" : "green") : "red"}>{w.enabled ? (w.failingSince ? "Failing" : "Enabled") : "Disabled"}</Badge>
                  {w.failingSince && w.enabled && <div className="mt-1 text-xs text-amber-700">since {timeAgo(w.failingSince)}</div>}
                </Td>
                <Td className="text-xs whitespace-nowrap">{timeAgo(w.lastSuccessAt)}</Td>
                <Td className="text-right whitespace-nowrap">
                  <div className="flex justify-end gap-1.5">
                    <Button variant="ghost" size="sm" onClick={() => setLogOf(w)}>
                      Deliveries
                    </Button>
                    <Button variant="secondary" size="sm" loading={test.isPending && test.variables?.webhookId === w.webhookId} onClick={() => test.mutate({ webhookId: w.webhookId })}>
                      Send test
                    </Button>
                    {isOwner && (
                      <>
                        <Button variant="secondary" size="sm" onClick={() => toggle.mutate({ webhookId: w.webhookId, enabled: !w.enabled })}>
                          {w.enabled ? "Disable" : "Enable"}
                        </Button>
                        <Button variant="secondary" size="sm" onClick={() => setEditing(w)}>
                          Edit
                        </Button>
                        <Button variant="secondary" size="sm" onClick={() => setRotating(w)}>
                          Rotate secret
                        </Button>
                        <Button variant="secondary" size="sm" className="!text-rose-700" onClick={() => setDeleting(w)}>
                          Delete
                        </Button>
                      </>
                    )}
                  </div>
                </Td>
              </tr>
            ))}
          </DataList>
        </Card>
        {logOf && <Deliveries hook={logOf} onClose={() => setLogOf(null)} />}
      </div>
      {editing && <EditDialog hook={editing} eventTypes={eventTypes} onClose={() => setEditing(null)} />}
      {rotating && <RotateDialog hook={rotating} onClose={() => setRotating(null)} />}
      {deleting && <DeleteDialog hook={deleting} onClose={() => setDeleting(null)} />}
    </>
  );
}
