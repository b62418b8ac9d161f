"use client";
// API keys: create (kind, environment, allowed origins, scopes), the secret shown once, rotate with a grace
// period, revoke with confirmation, and the referrals each key brought in.
import { useState, type FormEvent } from "react";
import type { Environment } from "@/server/shared/environment";
import { useEnvironment } from "../environment";
import { errorFor, fieldErrors, formError } from "../errors";
import { formatDateTime, timeAgo } from "../format";
import { Icon } from "../icons";
import { useMe } from "../shell";
import { useToast } from "../toast";
import { trpc, type RouterInputs, type RouterOutputs } from "../trpc";
import { Badge, Button, Card, ConfirmDialog, DataList, EmptyState, Field, Input, Notice, PageHeader, Select, Td, Textarea, Th } from "../ui";
import { KeyReferrals } from "./key-referrals";
import { SecretReveal } from "./secret-reveal";

type ApiKey = RouterOutputs["apiKeys"]["list"]["data"][number];
type Scope = NonNullable<RouterInputs["apiKeys"]["create"]["scopes"]>[number];

/** What each scope of a secret key allows, in the order the API lists them. */
const SCOPES: Array<{ scope: Scope; label: string }> = [
  { scope: "track", label: "Send events (POST /track, /track/batch)" },
  { scope: "referrals:write", label: "Apply referral codes (POST /sdk/referrals/apply)" },
  { scope: "referrals:read", label: "Read referrals (GET /sdk/referrals)" },
  { scope: "participants:write", label: "Create participants (POST /sdk/participants)" },
  { scope: "jobs:read", label: "Read job status (GET /sdk/jobs/:jobId)" },
  { scope: "rewards:write", label: "Reverse rewards after refunds (POST /sdk/rewards/reverse)" },
];

const GRACE_OPTIONS = [
  { value: 0, label: "Immediately (old secret stops now)" },
  { value: 3600, label: "1 hour" },
  { value: 86400, label: "24 hours" },
  { value: 7 * 86400, label: "7 days" },
];

function CreateKeyForm({ onCreated, onCancel }: { onCreated: (k: RouterOutputs["apiKeys"]["create"]) => void; onCancel: () => void }) {
  const { env } = useEnvironment();
  const toast = useToast();
  const utils = trpc.useUtils();
  const [environment, setEnvironment] = useState<Environment>(env);
  const [name, setName] = useState("");
  const [kind, setKind] = useState<"SECRET" | "PUBLISHABLE">("SECRET");
  const [origins, setOrigins] = useState("");
  const [scopes, setScopes] = useState<Scope[]>(SCOPES.map((s) => s.scope));
  const create = trpc.apiKeys.create.useMutation({
    onSuccess: (k) => {
      void utils.apiKeys.list.invalidate();
      toast("success", `${k.environment} key created`);
      onCreated(k);
    },
  });
  const errs = fieldErrors(create.error);
  const originLines = origins.split(/[\n,]/).map((s) => s.trim()).filter(Boolean);
  // Map "allowedOrigins.N" back to the line the user typed.
  const originError = (() => {
    const key = Object.keys(errs).find((k) => k.startsWith("allowedOrigins"));
    if (!key) return undefined;
    const idx = Number(key.split(".")[1]);
    return Number.isInteger(idx) && originLines[idx] ? `${originLines[idx]}: ${errs[key]}` : errs[key];
  })();

  function submit(e: FormEvent) {
    e.preventDefault();
    // Every scope is the default: send the list only when the owner narrowed it.
    const narrowed = kind === "SECRET" && scopes.length < SCOPES.length;
    create.mutate({ environment, kind, name: name.trim() || undefined, allowedOrigins: originLines.length ? originLines : undefined, scopes: narrowed ? scopes : undefined });
  }
  const top = formError(create.error, ["environment", "kind", "name", "allowedOrigins", "scopes"]);
  const scopeError = Object.entries(errs).find(([k]) => k === "scopes" || k.startsWith("scopes."))?.[1];
  return (
    <form onSubmit={submit} className="space-y-4" aria-label="Create API key">
      {top && <Notice tone="danger">{top}</Notice>}
      <Field
        label="Kind"
        error={errorFor(errs, "kind")}
        hint={
          kind === "SECRET"
            ? "Secret (rk_test_… / rk_live_…): for your server only. Can call every SDK route."
            : "Publishable (rk_pub_test_… / rk_pub_live_…): safe in a browser bundle. Only POST /track, /track/batch and /sdk/referrals/apply; its events never qualify or pay on their own."
        }
      >
        {(p) => (
          <Select {...p} name="kind" value={kind} onChange={(e) => setKind(e.target.value as "SECRET" | "PUBLISHABLE")}>
            <option value="SECRET">Secret (server)</option>
            <option value="PUBLISHABLE">Publishable (browser)</option>
          </Select>
        )}
      </Field>
      <div className="grid gap-4 sm:grid-cols-2">
        <Field label="Environment" error={errorFor(errs, "environment")} hint={environment === "LIVE" ? "Production traffic. Real ETH." : "For development and tests."}>
          {(p) => (
            <Select {...p} name="environment" value={environment} onChange={(e) => setEnvironment(e.target.value as Environment)}>
              <option value="TEST">Test</option>
              <option value="LIVE">Live</option>
            </Select>
          )}
        </Field>
        <Field label="Name (optional)" error={errorFor(errs, "name")}>
          {(p) => <Input {...p} name="name" value={name} onChange={(e) => setName(e.target.value)} maxLength={100} placeholder="e.g. Web shop backend" />}
        </Field>
      </div>
      <Field
        label={kind === "PUBLISHABLE" ? "Allowed origins (required)" : "Allowed origins (optional)"}
        error={originError}
        hint={kind === "PUBLISHABLE" ? "One per line: the sites whose pages may use this key, e.g. https://shop.example.com or https://*.example.com." : "One per line, e.g. https://shop.example.com or https://*.example.com. Leave empty for server-side keys."}
      >
        {(p) => <Textarea {...p} name="allowedOrigins" value={origins} onChange={(e) => setOrigins(e.target.value)} rows={3} placeholder="https://shop.example.com" />}
      </Field>
      {kind === "SECRET" && (
        <fieldset className="space-y-2" aria-describedby={scopeError ? "scopes-error" : undefined}>
          <legend className="text-sm font-medium text-slate-800">Scopes</legend>
          <p className="text-xs text-slate-500">What this key may call. A call outside them answers 403 INSUFFICIENT_SCOPE.</p>
          <div className="grid gap-1.5 sm:grid-cols-2">
            {SCOPES.map(({ scope, label }) => (
              <label key={scope} className="flex items-start gap-2 text-sm text-slate-800">
                <input
                  type="checkbox"
                  name="scopes"
                  value={scope}
                  checked={scopes.includes(scope)}
                  onChange={(e) => setScopes((cur) => (e.target.checked ? SCOPES.map((s) => s.scope).filter((x) => x === scope || cur.includes(x)) : cur.filter((x) => x !== scope)))}
                  className="mt-0.5 h-4 w-4 rounded border-slate-300 text-indigo-600 focus-visible:outline-2 focus-visible:outline-indigo-600"
                />
                <span>
                  <span className="font-mono text-xs">{scope}</span> <span className="text-slate-600">{label}</span>
                </span>
              </label>
            ))}
          </div>
          {scopes.length === 0 && <p className="text-xs text-amber-700">Choose at least one scope.</p>}
          {scopeError && (
            <p id="scopes-error" role="alert" className="text-xs font-medium text-rose-600">
              {scopeError}
            </p>
          )}
        </fieldset>
      )}
      {kind === "SECRET" && environment === "LIVE" && originLines.length === 0 && (
        <Notice tone="warning">A LIVE key without allowed origins must never ship in a browser bundle: keep it on your server.</Notice>
      )}
      <div className="flex justify-end gap-2">
        <Button variant="ghost" onClick={onCancel}>
          Cancel
        </Button>
        <Button type="submit" loading={create.isPending} disabled={kind === "SECRET" && scopes.length === 0}>
          Create key
        </Button>
      </div>
    </form>
  );
}

function RotateDialog({ apiKey, onClose }: { apiKey: ApiKey; onClose: () => void }) {
  const [grace, setGrace] = useState(0);
  const toast = useToast();
  const utils = trpc.useUtils();
  const rotate = trpc.apiKeys.rotate.useMutation({
    onSuccess: () => {
      void utils.apiKeys.list.invalidate();
      toast("success", "Key rotated: copy the new secret");
    },
  });
  return (
    <ConfirmDialog
      onClose={onClose}
      title={`Rotate ${apiKey.name ?? apiKey.prefix}`}
      confirmLabel="Rotate key"
      tone="primary"
      pending={rotate.isPending}
      error={formError(rotate.error)}
      onConfirm={() => rotate.mutate({ apiKeyId: apiKey.apiKeyId, expiresInSeconds: grace })}
      done={
        rotate.data && {
          title: "New secret",
          children: (
            <SecretReveal
              secret={rotate.data.secret}
              warnings={rotate.data.warnings}
              extra={rotate.data.previousSecretExpiresAt && <p className="text-xs text-slate-600">The old secret keeps working until {formatDateTime(rotate.data.previousSecretExpiresAt)}.</p>}
            />
          ),
        }
      }
    >
      <p>Rotation issues a new secret for the same key. Choose how long the current secret keeps working so you can deploy the new one.</p>
      <Field label="Grace period for the old secret">
        {(p) => (
          <Select {...p} name="expiresInSeconds" value={grace} onChange={(e) => setGrace(Number(e.target.value))}>
            {GRACE_OPTIONS.map((o) => (
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

function RevokeDialog({ apiKey, onClose }: { apiKey: ApiKey; onClose: () => void }) {
  const toast = useToast();
  const utils = trpc.useUtils();
  const revoke = trpc.apiKeys.revoke.useMutation({
    // Instant feedback: mark the key revoked in the list before the server answers.
    onMutate: async ({ apiKeyId }) => {
      await utils.apiKeys.list.cancel();
      const prev = utils.apiKeys.list.getData({});
      utils.apiKeys.list.setData({}, (d) => d && { ...d, data: d.data.map((k) => (k.apiKeyId === apiKeyId ? { ...k, status: "REVOKED" as const, revokedAt: new Date().toISOString() } : k)) });
      return { prev };
    },
    onError: (e, _v, ctx) => {
      if (ctx?.prev) utils.apiKeys.list.setData({}, ctx.prev);
      toast("error", formError(e) ?? "Could not revoke the key");
    },
    onSuccess: () => {
      toast("success", "Key revoked");
      onClose();
    },
    onSettled: () => utils.apiKeys.list.invalidate(),
  });
  return (
    <ConfirmDialog onClose={onClose} title="Revoke this key?" confirmLabel="Revoke key" pending={revoke.isPending} onConfirm={() => revoke.mutate({ apiKeyId: apiKey.apiKeyId })}>
      <p>
        Requests using <strong className="font-mono">{apiKey.prefix}…</strong> {apiKey.name ? `(${apiKey.name}) ` : ""}will be refused immediately. This cannot be undone.
      </p>
    </ConfirmDialog>
  );
}

export function ApiKeysPage() {
  const { env, setEnv } = useEnvironment();
  const { isOwner } = useMe();
  const keys = trpc.apiKeys.list.useQuery({});
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<RouterOutputs["apiKeys"]["create"] | null>(null);
  const [rotating, setRotating] = useState<ApiKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [referralsOf, setReferralsOf] = useState<ApiKey | null>(null);
  const list = (keys.data?.data ?? []).filter((k) => k.environment === env);

  return (
    <>
      <PageHeader
        title="API keys"
        description={`Keys authenticate your integration's calls to /track and /sdk/*. Showing ${env === "TEST" ? "test" : "live"} keys.`}
        actions={
          isOwner &&
          !creating && (
            <Button
              onClick={() => {
                setCreated(null);
                setCreating(true);
              }}
            >
              Create key
            </Button>
          )
        }
      />
      {!isOwner && <Notice tone="info">Only the owner of the business can create, rotate or revoke keys.</Notice>}
      <div className="space-y-6">
        {creating && (
          <Card title="New API key">
            <CreateKeyForm
              onCancel={() => setCreating(false)}
              onCreated={(k) => {
                setCreated(k);
                setCreating(false);
                // A key of the other environment: show that environment, so the new key stays in view.
                if (k.environment !== env) setEnv(k.environment);
              }}
            />
          </Card>
        )}
        {created && (
          <Card title={`Key created: ${created.name ?? created.prefix}`} actions={<Button variant="ghost" size="sm" onClick={() => setCreated(null)}>I&apos;ve copied it</Button>}>
            <SecretReveal secret={created.secret} warnings={created.warnings} />
          </Card>
        )}
        <Card bodyClassName="p-5 pt-0" title={`${env === "TEST" ? "Test" : "Live"} keys`}>
          <DataList query={keys} isEmpty={list.length === 0} itemsLabel="keys" skeleton={3} empty={
            <EmptyState icon={<Icon name="key" className="h-8 w-8" />} title={`No ${env.toLowerCase()} keys yet`} action={isOwner && <Button onClick={() => setCreating(true)}>Create a {env.toLowerCase()} key</Button>}>
                Create a key to start sending events from your app.
              </EmptyState>
          } label="API keys" head={
            <>
              <Th>Key</Th>
              <Th>Kind</Th>
              <Th>Status</Th>
              <Th>Allowed origins</Th>
              <Th>Last used</Th>
              <Th>Created</Th>
              <Th className="text-right">
                <span className="sr-only">Actions</span>
              </Th>
            </>
          }>
            {list.map((k) => (
              <tr key={k.apiKeyId} data-testid="api-key-row" data-key-id={k.apiKeyId}>
                <Td>
                  <div className="font-medium text-slate-900">{k.name ?? "Unnamed key"}</div>
                  <div className="font-mono text-xs text-slate-500">{k.prefix}…</div>
                  {k.previousSecretExpiresAt && new Date(k.previousSecretExpiresAt) > new Date() && (
                    <div className="mt-1 text-xs text-amber-700">Old secret valid until {formatDateTime(k.previousSecretExpiresAt)}</div>
                  )}
                </Td>
                <Td>
                  <span data-testid="api-key-kind" title={k.kind === "SECRET" ? `Scopes: ${k.scopes.join(", ")}` : "Browser key: track and apply referrals only"}>
                    <Badge>{k.kind === "PUBLISHABLE" ? "Publishable" : "Secret"}</Badge>
                  </span>
                  {k.kind === "SECRET" && (
                    <span className="mt-1 block text-xs text-slate-500" data-testid="api-key-scopes">
                      {k.scopes.length >= SCOPES.length ? "All scopes" : k.scopes.join(", ")}
                    </span>
                  )}
                </Td>
                <Td>
                  <Badge>{k.status}</Badge>
                </Td>
                <Td className="max-w-56">
                  {k.allowedOrigins.length ? <span className="block truncate text-xs" title={k.allowedOrigins.join(", ")}>{k.allowedOrigins.join(", ")}</span> : <span className="text-xs text-slate-500">Any (server-side)</span>}
                </Td>
                <Td className="whitespace-nowrap text-xs">{timeAgo(k.lastUsedAt)}</Td>
                <Td className="whitespace-nowrap text-xs">{formatDateTime(k.createdAt)}</Td>
                <Td className="text-right whitespace-nowrap">
                  <div className="flex justify-end gap-1.5">
                    <Button variant="ghost" size="sm" onClick={() => setReferralsOf(k)}>
                      Referrals
                    </Button>
                    {isOwner && k.status === "ACTIVE" && (
                      <>
                        <Button variant="secondary" size="sm" onClick={() => setRotating(k)}>
                          Rotate
                        </Button>
                        <Button variant="secondary" size="sm" className="!text-rose-700" onClick={() => setRevoking(k)}>
                          Revoke
                        </Button>
                      </>
                    )}
                  </div>
                </Td>
              </tr>
            ))}
          </DataList>
        </Card>
        {referralsOf && <KeyReferrals apiKey={referralsOf} onClose={() => setReferralsOf(null)} />}
      </div>
      {rotating && <RotateDialog apiKey={rotating} onClose={() => setRotating(null)} />}
      {revoking && <RevokeDialog apiKey={revoking} onClose={() => setRevoking(null)} />}
    </>
  );
}
