"use client";
// Commission rules of the environment in view: what referred customers' events pay (a percent
// of the amount or a fixed amount, to the referrer or the referred customer, for some months,
// up to a number of times per referral). The owner or an admin creates, edits, disables and
// deletes them; members read them. The form says in words what a purchase pays at the
// environment's price, and tries the draft on stored events (commissionRules.simulate).
import Link from "next/link";
import { Fragment, useMemo, useState, type FormEvent } from "react";
import { fixedRuleWei, limitsText, moneyProblem, percentProblem, previewText, ruleSummary, type Prices, type RuleDraft } from "../commission-words";
import { toBaseUnits } from "@/server/shared/money";
import { amountOf } from "@/server/shared/asset";
import { useEnvironment } from "../environment";
import { errorFor, fieldErrors, formError } from "../errors";
import { formatDate } from "../format";
import { readWholeNumber } from "../numbers";
import { useMe } from "../shell";
import { useToast } from "../toast";
import { trpc, type RouterInputs, type RouterOutputs } from "../trpc";
import { Badge, Button, Card, ConfirmDialog, DataList, EmptyState, Field, Input, Notice, PageHeader, Select, Td, Th, Toggle } from "../ui";
import { Eth, useAsset } from "../money";

type Rule = RouterOutputs["commissionRules"]["list"]["data"][number];
type Pricing = RouterOutputs["config"]["pricing"];
type Tier = RouterOutputs["tiers"]["list"]["data"][number];
type SimulatedRule = RouterInputs["commissionRules"]["simulate"]["rule"];

const CURRENCY_CHOICES = ["USD", "EUR", "GBP", "JPY", "CHF", "CAD", "AUD", "ETH"] as const;
const durationField = { min: 1, max: 120, what: "the duration in months", emptyMeans: "the life of the referral" };
const maxField = { min: 1, max: 1_000_000, what: "the maximum number of rewards per referral", emptyMeans: "no limit" };

/** The prices a preview can use now: the rate in force per currency (a stale feed has none). */
function pricesOf(p: Pricing | undefined): Prices | null {
  if (!p) return null;
  const rates: Record<string, string> = {};
  for (const [c, v] of Object.entries(p.prices)) if (v.rate) rates[c] = v.rate;
  return { source: p.source, rates };
}

const asDraft = (r: Rule): RuleDraft => ({ eventName: r.eventName, recipient: r.recipient, type: r.type, percent: r.percent, amount: r.amount, currency: r.currency, durationMonths: r.durationMonths, maxRewardsPerReferral: r.maxRewardsPerReferral });

type FormValues = { name: string; eventName: string; recipient: RuleDraft["recipient"]; type: RuleDraft["type"]; percent: string; amount: string; currency: string; durationMonths: string; maxRewardsPerReferral: string; tierPercents: Record<string, string>; enabled: boolean };

const initial = (r: Rule | undefined, defaultCurrency: string): FormValues => ({
  name: r?.name ?? "",
  eventName: r?.eventName ?? "purchase",
  recipient: r?.recipient ?? "REFERRER",
  type: r?.type ?? "PERCENT",
  percent: r?.percent ?? "",
  amount: r?.amount ?? "",
  currency: r?.currency ?? defaultCurrency,
  durationMonths: r?.durationMonths?.toString() ?? "",
  maxRewardsPerReferral: r?.maxRewardsPerReferral?.toString() ?? "",
  tierPercents: { ...(r?.tierPercents ?? {}) },
  enabled: r?.enabled ?? true,
});

/** Reads the form: the rule's fields, or a sentence per field that is not right. */
function readForm(v: FormValues): { ok: true; rule: SimulatedRule & { name: string } } | { ok: false; problems: Record<string, string> } {
  const problems: Record<string, string> = {};
  if (!v.name.trim()) problems.name = "Give the rule a name, e.g. “10% of purchases”.";
  if (!v.eventName.trim()) problems.eventName = "Enter the event name that earns the commission, e.g. purchase.";
  if (v.type === "PERCENT") {
    const p = percentProblem(v.percent);
    if (p) problems.percent = p;
    for (const [tierId, text] of Object.entries(v.tierPercents)) {
      if (text.trim() === "") continue;
      const t = percentProblem(text, "the tier's percentage");
      if (t) problems[`tierPercents.${tierId}`] = `${t} Leave it empty to use the rule's percentage.`;
    }
  } else {
    const m = moneyProblem(v.amount, v.currency);
    if (m) problems.amount = m;
  }
  const duration = readWholeNumber(v.durationMonths, durationField);
  if (!duration.ok) problems.durationMonths = duration.message;
  const max = readWholeNumber(v.maxRewardsPerReferral, maxField);
  if (!max.ok) problems.maxRewardsPerReferral = max.message;
  if (Object.keys(problems).length || !duration.ok || !max.ok) return { ok: false, problems };
  const tierPercents = Object.fromEntries(Object.entries(v.tierPercents).map(([k, t]) => [k, t.trim()]).filter(([, t]) => t !== ""));
  const byType =
    v.type === "PERCENT"
      ? { percent: v.percent.trim(), amount: null, currency: null, tierPercents }
      : { percent: null, amount: v.amount.trim(), currency: v.currency as (typeof CURRENCY_CHOICES)[number], tierPercents: {} };
  return {
    ok: true,
    rule: { name: v.name.trim(), eventName: v.eventName.trim(), recipient: v.recipient, type: v.type, ...byType, durationMonths: duration.value, maxRewardsPerReferral: max.value, enabled: v.enabled },
  };
}

/** The draft as the preview reads it (invalid fields give a sentence asking for them). */
const draftOf = (v: FormValues): RuleDraft => {
  const d = readWholeNumber(v.durationMonths, durationField);
  const m = readWholeNumber(v.maxRewardsPerReferral, maxField);
  return { eventName: v.eventName, recipient: v.recipient, type: v.type, percent: v.percent.trim(), amount: v.amount.trim(), currency: v.currency, durationMonths: d.ok ? d.value : null, maxRewardsPerReferral: m.ok ? m.value : null };
};

function RuleForm({ rule, onDone, pricing, defaultCurrency, tiers }: { rule?: Rule; onDone: () => void; pricing: Prices | null; defaultCurrency: string; tiers: Tier[] }) {
  const { env } = useEnvironment();
  const toast = useToast();
  const utils = trpc.useUtils();
  const [v, setV] = useState<FormValues>(() => initial(rule, defaultCurrency));
  const [local, setLocal] = useState<Record<string, string>>({});
  const done = (msg: string) => {
    void utils.commissionRules.list.invalidate();
    toast("success", msg);
    onDone();
  };
  const create = trpc.commissionRules.create.useMutation({ onSuccess: (r) => done(`Rule ${r.name} created`) });
  const update = trpc.commissionRules.update.useMutation({ onSuccess: (r) => done(`Rule ${r.name} saved`) });
  const m = rule ? update : create;
  // A FIXED amount above what the pool holds now is saved only once the person confirms it.
  const balance = trpc.funding.balance.useQuery({ environment: env });
  const asset = useAsset();
  const [abovePool, setAbovePool] = useState<{ rule: SimulatedRule & { name: string }; wei: bigint; poolWei: bigint } | null>(null);
  const errs = { ...fieldErrors(m.error), ...local };
  const fields = ["name", "eventName", "recipient", "type", "percent", "amount", "currency", "durationMonths", "maxRewardsPerReferral", "tierPercents", "enabled"];
  const top = formError(m.error, fields);
  const set = (k: "name" | "eventName" | "percent" | "amount" | "durationMonths" | "maxRewardsPerReferral") => (e: { target: { value: string } }) => setV((x) => ({ ...x, [k]: e.target.value }));
  const draft = draftOf(v);

  function submit(e: FormEvent) {
    e.preventDefault();
    const read = readForm(v);
    if (!read.ok) {
      setLocal(read.problems);
      m.reset();
      return;
    }
    setLocal({});
    const wei = fixedRuleWei(draft, pricing, asset);
    const poolWei = balance.data ? toBaseUnits(balance.data.balanceEth, balance.data.asset.decimals) : null;
    if (wei !== null && poolWei !== null && wei > poolWei) setAbovePool({ rule: read.rule, wei, poolWei });
    else save(read.rule);
  }

  function save(r: SimulatedRule & { name: string }) {
    setAbovePool(null);
    if (rule) update.mutate({ ruleId: rule.ruleId, ...r });
    else create.mutate({ environment: env, ...r });
  }

  return (
    <form onSubmit={submit} noValidate aria-label={rule ? `Edit rule ${rule.name}` : "New commission rule"} className="space-y-4">
      {top && <Notice tone="danger">{top}</Notice>}
      <div className="grid gap-4 sm:grid-cols-2">
        <Field label="Rule name" error={errorFor(errs, "name")}>{(p) => <Input {...p} name="name" value={v.name} onChange={set("name")} maxLength={100} placeholder="10% of purchases" />}</Field>
        <Field label="Event name" error={errorFor(errs, "eventName")} hint="The tracked event that earns it, e.g. purchase or renewal.">{(p) => <Input {...p} name="eventName" value={v.eventName} onChange={set("eventName")} maxLength={100} />}</Field>
        <Field label="Paid to" error={errorFor(errs, "recipient")}>
          {(p) => (
            <Select {...p} name="recipient" value={v.recipient} onChange={(e) => setV((x) => ({ ...x, recipient: e.target.value as FormValues["recipient"] }))}>
              <option value="REFERRER">The referrer</option>
              <option value="REFERRED">The referred customer</option>
            </Select>
          )}
        </Field>
        <Field label="Commission type" error={errorFor(errs, "type")} hint={v.type === "PERCENT" ? "A share of each event's amount, in the event's currency, converted to ETH." : "The same amount for each event, converted to ETH."}>
          {(p) => (
            <Select {...p} name="type" value={v.type} onChange={(e) => setV((x) => ({ ...x, type: e.target.value as FormValues["type"] }))}>
              <option value="PERCENT">Percent of the amount</option>
              <option value="FIXED">Fixed amount</option>
            </Select>
          )}
        </Field>
        {v.type === "PERCENT" ? (
          <Field label="Percent" error={errorFor(errs, "percent")} hint="Above 0, at most 100, up to 2 decimals.">{(p) => <Input {...p} name="percent" inputMode="decimal" value={v.percent} onChange={set("percent")} placeholder="10" maxLength={6} />}</Field>
        ) : (
          <div className="grid grid-cols-[1fr_auto] gap-3">
            <Field label="Amount" error={errorFor(errs, "amount")}>{(p) => <Input {...p} name="amount" inputMode="decimal" value={v.amount} onChange={set("amount")} placeholder="5.00" maxLength={40} />}</Field>
            <Field label="Currency" error={errorFor(errs, "currency")}>
              {(p) => (
                <Select {...p} name="currency" value={v.currency} onChange={(e) => setV((x) => ({ ...x, currency: e.target.value }))}>
                  {CURRENCY_CHOICES.map((c) => <option key={c} value={c}>{c}</option>)}
                </Select>
              )}
            </Field>
          </div>
        )}
        <Field label="Duration (months)" error={errorFor(errs, "durationMonths")} hint="Calendar months after the referral qualifies (1–120). Empty: for the life of the referral.">{(p) => <Input {...p} name="durationMonths" inputMode="numeric" value={v.durationMonths} onChange={set("durationMonths")} maxLength={9} />}</Field>
        <Field label="Max rewards per referral" error={errorFor(errs, "maxRewardsPerReferral")} hint="Empty: no limit.">{(p) => <Input {...p} name="maxRewardsPerReferral" inputMode="numeric" value={v.maxRewardsPerReferral} onChange={set("maxRewardsPerReferral")} maxLength={9} />}</Field>
      </div>
      {v.type === "PERCENT" && tiers.length > 0 && (
        <fieldset className="min-w-0 space-y-2">
          <legend className="text-sm font-medium text-slate-800">Percent by referrer tier (optional)</legend>
          <p className="text-xs text-slate-500">Replaces the percent above for referrers in that tier. Empty: the rule&apos;s percent.</p>
          <div className="grid gap-3 sm:grid-cols-3">
            {tiers.map((t) => (
              <Field key={t.tierId} label={`${t.name} (%)`} error={errorFor(errs, `tierPercents.${t.tierId}`)}>
                {(p) => <Input {...p} name={`tierPercents.${t.tierId}`} inputMode="decimal" value={v.tierPercents[t.tierId] ?? ""} onChange={(e) => setV((x) => ({ ...x, tierPercents: { ...x.tierPercents, [t.tierId]: e.target.value } }))} maxLength={6} />}
              </Field>
            ))}
          </div>
        </fieldset>
      )}
      <Toggle label="Enabled" description="A disabled rule pays nothing until enabled again." checked={v.enabled} onChange={(enabled) => setV((x) => ({ ...x, enabled }))} />
      <div className="rounded-lg bg-indigo-50 px-4 py-3 text-sm text-indigo-950 ring-1 ring-indigo-100" aria-live="polite" data-testid="rule-preview">
        <p className="font-medium">{previewText(draft, pricing, defaultCurrency, asset)}</p>
        <p className="mt-1 text-xs text-indigo-800">Earned {limitsText(draft)}; the spend limits and the pool apply as to every reward.</p>
      </div>
      <div className="flex flex-wrap justify-end gap-2">
        <Button variant="ghost" onClick={onDone}>Cancel</Button>
        {/* The pool's balance decides whether to ask first: saving waits for it. */}
        <Button type="submit" loading={m.isPending || balance.isLoading}>{rule ? "Save rule" : "Create rule"}</Button>
      </div>
      <Simulation values={v} onProblems={setLocal} />
      {abovePool && (
        <ConfirmDialog onClose={() => setAbovePool(null)} title="Pay more than the pool holds?" confirmLabel="Save anyway" tone="primary" onConfirm={() => save(abovePool.rule)}>
          <p>
            Each {draft.eventName.trim() || "event"} would pay <Eth value={amountOf(abovePool.wei, asset)} />, more than the {env.toLowerCase()} pool holds now (<Eth value={amountOf(abovePool.poolWei, asset)} />). Rewards the pool cannot cover are recorded as unfunded until it is funded. Check the amount and its currency.
          </p>
        </ConfirmDialog>
      )}
    </form>
  );
}

const isoDay = (d: Date) => d.toISOString().slice(0, 10);
const dayAfter = (d: string) => isoDay(new Date(Date.parse(`${d}T00:00:00Z`) + 86_400_000));

/** Tries the form's rule on stored events of a range, without writing anything. */
function Simulation({ values, onProblems, titleId = "simulate-title" }: { values: FormValues; onProblems: (p: Record<string, string>) => void; titleId?: string }) {
  const { env } = useEnvironment();
  // The last 30 UTC days by default (read once, when the form opens).
  const [from, setFrom] = useState(() => isoDay(new Date(Date.now() - 29 * 86_400_000)));
  const [to, setTo] = useState(() => isoDay(new Date()));
  const [rangeError, setRangeError] = useState<string | null>(null);
  const sim = trpc.commissionRules.simulate.useMutation();
  const errs = fieldErrors(sim.error);
  function run() {
    const read = readForm(values);
    if (!read.ok) {
      onProblems(read.problems);
      sim.reset();
      return;
    }
    onProblems({});
    if (!from || !to || to < from) {
      setRangeError("Choose a start day on or before the end day.");
      return;
    }
    setRangeError(null);
    const { name: _name, ...rule } = read.rule;
    sim.mutate({ environment: env, rule, from, to: dayAfter(to) });
  }
  const r = sim.data;
  return (
    <section aria-labelledby={titleId} className="space-y-3 border-t border-slate-100 pt-4">
      <div>
        <h3 id={titleId} className="text-sm font-semibold text-slate-800">Try it on past events</h3>
        <p className="text-xs text-slate-500">What this rule would have paid on the {env.toLowerCase()} events of a range, with today&apos;s prices and limits. Nothing is written.</p>
      </div>
      <div className="grid gap-3 sm:grid-cols-[1fr_1fr_auto] sm:items-end">
        <Field label="From" error={rangeError ?? errorFor(errs, "from")}>{(p) => <Input {...p} name="simulateFrom" type="date" value={from} max={to || undefined} onChange={(e) => setFrom(e.target.value)} />}</Field>
        <Field label="Through" error={errorFor(errs, "to")}>{(p) => <Input {...p} name="simulateTo" type="date" value={to} min={from || undefined} onChange={(e) => setTo(e.target.value)} />}</Field>
        <Button variant="secondary" loading={sim.isPending} onClick={run}>Simulate</Button>
      </div>
      {sim.error && !errorFor(errs, "from") && !errorFor(errs, "to") && <p role="alert" className="text-sm font-medium text-rose-600">{formError(sim.error)}</p>}
      {r && (
        <div className="space-y-3" data-testid="simulation-result" role="status">
          <dl className="grid grid-cols-3 gap-3 text-sm">
            <div className="min-w-0 rounded-lg bg-slate-50 px-3 py-2 ring-1 ring-slate-200"><dt className="text-xs text-slate-500">Events</dt><dd className="font-semibold">{r.events}</dd></div>
            <div className="min-w-0 rounded-lg bg-slate-50 px-3 py-2 ring-1 ring-slate-200"><dt className="text-xs text-slate-500">Rewards</dt><dd className="font-semibold">{r.rewards}</dd></div>
            <div className="min-w-0 rounded-lg bg-slate-50 px-3 py-2 ring-1 ring-slate-200"><dt className="text-xs text-slate-500">Total</dt><dd className="font-semibold [overflow-wrap:anywhere]" data-testid="simulation-total"><Eth value={r.totalEth} /></dd></div>
          </dl>
          {r.topParticipants.length > 0 ? (
            <div>
              <h4 className="text-xs font-semibold text-slate-700">Top participants</h4>
              <ul className="divide-y divide-slate-100 text-sm">
                {r.topParticipants.map((p) => (
                  <li key={p.participantId} className="flex flex-wrap justify-between gap-2 py-1.5">
                    <Link href={`/dashboard/participants/${p.participantId}`} className="font-medium text-indigo-700 hover:underline">{p.name ?? p.participantId}</Link>
                    <span className="text-xs [overflow-wrap:anywhere]"><Eth value={p.totalEth} /></span>
                  </li>
                ))}
              </ul>
            </div>
          ) : (
            <p className="text-sm text-slate-500">No event of the range would have earned a reward under this rule.</p>
          )}
        </div>
      )}
    </section>
  );
}

const noProblems = () => undefined;

/** A stored rule tried on past events: open to every member (a simulation writes nothing). */
function RuleSimulationRow({ rule, defaultCurrency }: { rule: Rule; defaultCurrency: string }) {
  const values = useMemo(() => initial(rule, defaultCurrency), [rule, defaultCurrency]);
  return (
    <tr>
      <td colSpan={4} className="px-5 pb-4">
        <Simulation values={values} onProblems={noProblems} titleId={`simulate-${rule.ruleId}`} />
      </td>
    </tr>
  );
}

function RuleRow({ rule, canEdit, trying, onTry, onEdit, onDelete }: { rule: Rule; canEdit: boolean; trying: boolean; onTry: () => void; onEdit: () => void; onDelete: () => void }) {
  const toast = useToast();
  const utils = trpc.useUtils();
  const toggle = trpc.commissionRules.update.useMutation({
    onSuccess: (r) => {
      void utils.commissionRules.list.invalidate();
      toast("success", `Rule ${r.name} ${r.enabled ? "enabled" : "disabled"}`);
    },
    onError: (e) => toast("error", formError(e) ?? "Could not change the rule"),
  });
  const d = asDraft(rule);
  return (
    <tr data-testid="commission-rule-row" data-enabled={rule.enabled}>
      <Td className="min-w-40">
        <span className="font-medium text-slate-900">{rule.name}</span>
        <span className="block text-xs text-slate-500">since {formatDate(rule.createdAt)}</span>
      </Td>
      <Td className="min-w-56 text-xs">
        {ruleSummary(d)}
        <span className="block text-slate-500">{limitsText(d)}</span>
        {Object.keys(rule.tierPercents).length > 0 && <span className="block text-slate-500">with percents per tier</span>}
      </Td>
      <Td><Badge color={rule.enabled ? "green" : "gray"}>{rule.enabled ? "Enabled" : "Disabled"}</Badge></Td>
      <Td className="text-right whitespace-nowrap">
        <div className="flex justify-end gap-1.5">
          <Button size="sm" variant="secondary" onClick={onTry} aria-expanded={trying} aria-label={`Try ${rule.name} on past events`}>{trying ? "Close" : "Try"}</Button>
        {canEdit && (
          <>
            <Button size="sm" variant="secondary" onClick={onEdit} aria-label={`Edit ${rule.name}`}>Edit</Button>
            <Button size="sm" variant="secondary" loading={toggle.isPending} onClick={() => toggle.mutate({ ruleId: rule.ruleId, enabled: !rule.enabled })} aria-label={`${rule.enabled ? "Disable" : "Enable"} ${rule.name}`}>
              {rule.enabled ? "Disable" : "Enable"}
            </Button>
            <Button size="sm" variant="secondary" className="!text-rose-700" onClick={onDelete} aria-label={`Delete ${rule.name}`}>Delete</Button>
          </>
        )}
        </div>
      </Td>
    </tr>
  );
}

export function CommissionRulesPage() {
  const { env } = useEnvironment();
  const { symbol } = useAsset();
  const { canChangeMoney } = useMe();
  const toast = useToast();
  const utils = trpc.useUtils();
  const rules = trpc.commissionRules.list.useQuery({ environment: env });
  const pricing = trpc.config.pricing.useQuery({ environment: env });
  const config = trpc.config.get.useQuery({ environment: env });
  const tiers = trpc.tiers.list.useQuery({});
  const [editing, setEditing] = useState<Rule | "new" | null>(null);
  const [deleting, setDeleting] = useState<Rule | null>(null);
  const [trying, setTrying] = useState<string | null>(null);
  const del = trpc.commissionRules.delete.useMutation({
    onSuccess: () => {
      void utils.commissionRules.list.invalidate();
      toast("success", `Rule ${deleting?.name ?? ""} deleted`);
      setDeleting(null);
    },
    onError: (e) => toast("error", formError(e) ?? "Could not delete the rule"),
  });
  const prices = pricesOf(pricing.data);
  const defaultCurrency = config.data?.general.defaultCurrency ?? "USD";
  const formProps = { pricing: prices, defaultCurrency, tiers: tiers.data?.data ?? [] };
  const envName = env === "TEST" ? "Test" : "Live";
  // Forms start once what they read (prices, default currency, tiers) is there.
  const formReady = !pricing.isLoading && !config.isLoading && !tiers.isLoading;
  return (
    <>
      <PageHeader title="Commission rules" description={`What referred customers' ${env.toLowerCase()} events pay beside the one-time referral reward: a percent of each sale or a fixed amount, converted to ${symbol} at the environment's price.`} />
      <div className="space-y-6">
        {pricing.data && Object.keys(pricing.data.prices).length === 0 && (
          <Notice tone="warning" title="No prices yet">
            Events in other currencies than {symbol} wait until a price exists. Set the price of 1 {symbol} on the <Link className="font-medium underline" href="/dashboard/configuration">Configuration</Link> page.
          </Notice>
        )}
        <Card
          title={<span className="flex flex-wrap items-center gap-2">Rules · {envName} <Badge color={env === "TEST" ? "amber" : "indigo"}>{env === "TEST" ? "Test only" : "Live only"}</Badge></span>}
          description="Each matching event of a qualified referral earns one reward per enabled rule. Changing or deleting a rule never changes rewards already granted."
          actions={canChangeMoney && editing === null && <Button size="sm" onClick={() => setEditing("new")} disabled={!formReady}>New rule</Button>}
          bodyClassName="p-5 pt-0"
        >
          {!canChangeMoney && <div className="pt-5"><Notice tone="info">Only the owner or an admin can change commission rules; anyone can try a rule on past events.</Notice></div>}
          {editing === "new" && formReady && <div className="border-b border-slate-100 py-4"><RuleForm {...formProps} onDone={() => setEditing(null)} /></div>}
          <DataList query={rules} isEmpty={!rules.data?.data.length} itemsLabel="commission rules" skeleton={2} empty={<EmptyState title={`No ${env.toLowerCase()} commission rules yet`}>Add a rule such as 10% of each purchase for 12 months to reward referrers for what their customers spend.</EmptyState>} label="Commission rules" head={
            <>
              <Th>Rule</Th>
              <Th>Pays</Th>
              <Th>Status</Th>
              <Th className="text-right"><span className="sr-only">Actions</span></Th>
            </>
          }>
            {(rules.data?.data ?? []).map((r) =>
              editing !== "new" && editing?.ruleId === r.ruleId ? (
                <tr key={r.ruleId}>
                  <td colSpan={4} className="px-5 py-4"><RuleForm {...formProps} rule={r} onDone={() => setEditing(null)} /></td>
                </tr>
              ) : (
                <Fragment key={r.ruleId}>
                  <RuleRow rule={r} canEdit={canChangeMoney && editing === null} trying={trying === r.ruleId} onTry={() => setTrying((t) => (t === r.ruleId ? null : r.ruleId))} onEdit={() => setEditing(r)} onDelete={() => setDeleting(r)} />
                  {trying === r.ruleId && <RuleSimulationRow rule={r} defaultCurrency={defaultCurrency} />}
                </Fragment>
              ),
            )}
          </DataList>
        </Card>
      </div>
      {deleting && (
        <ConfirmDialog onClose={() => setDeleting(null)} title="Delete this rule?" confirmLabel="Delete rule" pending={del.isPending} onConfirm={() => del.mutate({ ruleId: deleting.ruleId })}>
          <p><strong>{deleting.name}</strong> stops paying. Rewards it already granted stay as they are, and keep naming it in exports.</p>
        </ConfirmDialog>
      )}
    </>
  );
}
