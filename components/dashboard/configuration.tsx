"use client";
// Configuration: general settings (name and processing: any member; reward fields: owner or
// admin), spend limits and payout settings (owner), the tiers editor (owner or admin) and how
// participants fall into tiers.
import { useState, type FormEvent } from "react";
import { useEnvironment } from "../environment";
import { contractError, errorFor, fieldErrors, formError } from "../errors";
import { formatDateTime } from "../format";
import { readWholeNumber } from "../numbers";
import { useMe } from "../shell";
import { useToast } from "../toast";
import { trpc, type RouterOutputs } from "../trpc";
import { LinksForm } from "./links-settings";
import { Badge, Button, Card, ConfirmDialog, DataList, EmptyState, ErrorState, Field, Input, LoadingRows, Notice, PageHeader, Select, Td, Textarea, Th, Toggle } from "../ui";
import { Eth, EthAmountField, useAsset } from "../money";

type Config = RouterOutputs["config"]["get"];
type Tier = RouterOutputs["tiers"]["list"]["data"][number];

const envWord = (e: "TEST" | "LIVE") => (e === "TEST" ? "test" : "live");

/** Says where a group of settings applies: both environments, or only the one in view. */
function Scope({ env }: { env?: "TEST" | "LIVE" }) {
  return env ? (
    <Badge color={env === "TEST" ? "amber" : "indigo"}>{env === "TEST" ? "Test only" : "Live only"}</Badge>
  ) : (
    <Badge color="gray">Shared by test and live</Badge>
  );
}

function GeneralForm({ config, canChangeMoney }: { config: Config; canChangeMoney: boolean }) {
  const env = config.environment;
  const toast = useToast();
  const utils = trpc.useUtils();
  const g = config.general;
  const [leaderboard, setLeaderboard] = useState(g.leaderboardEnabled);
  const [bonusRequiresWallet, setBonusRequiresWallet] = useState(g.bonusRequiresWallet);
  const [v, setV] = useState({ businessName: g.businessName, website: g.website ?? "", rewardStrategy: g.rewardStrategy, referralRewardEth: g.referralRewardEth, bonusEth: g.bonusEth, eventProcessing: g.eventProcessing, qualifyingEvents: g.qualifyingEvents.join("\n") });
  const update = trpc.config.updateGeneral.useMutation({
    onSuccess: (c) => {
      utils.config.get.setData({ environment: c.environment }, c);
      void utils.me.get.invalidate();
      toast("success", "General settings saved");
    },
  });
  const errs = fieldErrors(update.error);
  const top = formError(update.error, Object.keys(v));
  const set = (k: keyof typeof v) => (e: { target: { value: string } }) => setV((x) => ({ ...x, [k]: e.target.value }));
  const events = v.qualifyingEvents.split(/[\n,]/).map((s) => s.trim()).filter(Boolean);
  function submit(e: FormEvent) {
    e.preventDefault();
    const rewardFields = { rewardStrategy: v.rewardStrategy, referralRewardEth: v.referralRewardEth.trim(), bonusEth: v.bonusEth.trim(), qualifyingEvents: events, bonusRequiresWallet };
    update.mutate({
      environment: env,
      businessName: v.businessName.trim(),
      website: v.website.trim() || null,
      eventProcessing: v.eventProcessing,
      ...(canChangeMoney ? rewardFields : {}),
      leaderboardEnabled: leaderboard,
    });
  }
  return (
    <form onSubmit={submit} noValidate aria-label="General settings" className="space-y-4">
      {top && <Notice tone="danger">{top}</Notice>}
      {!canChangeMoney && <Notice tone="info">Only the owner or an admin can change the reward strategy, qualifying events and reward amounts.</Notice>}
      <p className="flex flex-wrap items-center gap-2 text-sm font-semibold text-slate-800">Business and processing <Scope /></p>
      <div className="grid gap-4 sm:grid-cols-2">
        <Field label="Business name" error={errorFor(errs, "businessName")}>{(p) => <Input {...p} name="businessName" value={v.businessName} onChange={set("businessName")} maxLength={120} />}</Field>
        <Field label="Website" error={errorFor(errs, "website")}>{(p) => <Input {...p} name="website" value={v.website} onChange={set("website")} placeholder="https://example.com" maxLength={2048} />}</Field>
        <Field label="Reward strategy" error={errorFor(errs, "rewardStrategy")} hint={v.rewardStrategy === "TIERED" ? "Amounts come from the referrer's tier." : "Every qualified referral earns the amounts below."}>
          {(p) => (
            <Select {...p} name="rewardStrategy" disabled={!canChangeMoney} value={v.rewardStrategy} onChange={(e) => setV((x) => ({ ...x, rewardStrategy: e.target.value as typeof x.rewardStrategy }))}>
              <option value="FIXED">Fixed</option>
              <option value="TIERED">Tiered</option>
            </Select>
          )}
        </Field>
        <Field label="Event processing" error={errorFor(errs, "eventProcessing")} hint="Auto queues events that may create a referred user.">
          {(p) => (
            <Select {...p} name="eventProcessing" value={v.eventProcessing} onChange={(e) => setV((x) => ({ ...x, eventProcessing: e.target.value as typeof x.eventProcessing }))}>
              <option value="AUTO">Auto</option>
              <option value="SYNC">Always synchronous</option>
              <option value="ASYNC">Always queued</option>
            </Select>
          )}
        </Field>
      </div>
      <Field label="Qualifying events" error={errorFor(errs, "qualifyingEvents")} hint="One event name per line. Empty: every event qualifies a referral.">
        {(p) => <Textarea {...p} name="qualifyingEvents" disabled={!canChangeMoney} value={v.qualifyingEvents} onChange={set("qualifyingEvents")} rows={3} placeholder="purchase" />}
      </Field>
      <p className="flex flex-wrap items-center gap-2 border-t border-slate-100 pt-4 text-sm font-semibold text-slate-800">Reward amounts for {envWord(env)} referrals <Scope env={env} /></p>
      <div className="grid gap-4 sm:grid-cols-2">
        <EthAmountField label="Referral reward" name="referralRewardEth" error={errorFor(errs, "referralRewardEth")} hint={`Paid to the referrer when a ${envWord(env)} referral qualifies.`} disabled={!canChangeMoney} value={v.referralRewardEth} onChange={(eth) => setV((x) => ({ ...x, referralRewardEth: eth }))} />
        <EthAmountField label="Bonus" name="bonusEth" error={errorFor(errs, "bonusEth")} hint="Paid to the referred user." disabled={!canChangeMoney} value={v.bonusEth} onChange={(eth) => setV((x) => ({ ...x, bonusEth: eth }))} />
      </div>
      <Toggle
        label={`Bonus only to ${envWord(env)} customers with a wallet`}
        disabled={!canChangeMoney}
        description={
          bonusRequiresWallet
            ? "On: a referred customer who has no payout wallet when their purchase qualifies gets no bonus, now or later (adding a wallet afterwards does not bring it back). The referrer is rewarded as usual."
            : "Off: every referred customer is granted the bonus; those without a wallet are owed it until they add one in their portal."
        }
        checked={bonusRequiresWallet}
        onChange={setBonusRequiresWallet}
      />
      <Toggle label={`Leaderboard in the ${envWord(env)} portal`} description="Participants see this month's top referrers, by handle or masked name, and their own rank." checked={leaderboard} onChange={setLeaderboard} />
      <div className="flex justify-end">
        <Button type="submit" loading={update.isPending}>Save general settings</Button>
      </div>
    </form>
  );
}

const nullable = (s: string) => (s.trim() === "" ? null : s.trim());

function SpendForm({ config, canEdit }: { config: Config; canEdit: boolean }) {
  const toast = useToast();
  const utils = trpc.useUtils();
  const s = config.spend;
  const [v, setV] = useState({ maxEthPerDayPerUser: s.maxEthPerDayPerUser ?? "", maxReferralEthPerEvent: s.maxReferralEthPerEvent ?? "", maxBonusEthPerEvent: s.maxBonusEthPerEvent ?? "", lowPoolAlertEth: s.lowPoolAlertEth, autoRefillAmountEth: s.autoRefillAmountEth });
  const [autoRefill, setAutoRefill] = useState(s.autoRefillEnabled);
  const [verifiedOnly, setVerifiedOnly] = useState(s.requireVerifiedWallet);
  const update = trpc.config.updateSpend.useMutation({
    onSuccess: (c) => {
      utils.config.get.setData({ environment: c.environment }, c);
      void utils.funding.balance.invalidate();
      toast("success", "Spend limits saved");
    },
  });
  const errs = fieldErrors(update.error);
  const top = formError(update.error, [...Object.keys(v), "autoRefillEnabled"]);
  function submit(e: FormEvent) {
    e.preventDefault();
    update.mutate({
      environment: config.environment,
      maxEthPerDayPerUser: nullable(v.maxEthPerDayPerUser),
      maxReferralEthPerEvent: nullable(v.maxReferralEthPerEvent),
      maxBonusEthPerEvent: nullable(v.maxBonusEthPerEvent),
      lowPoolAlertEth: v.lowPoolAlertEth.trim(),
      autoRefillEnabled: autoRefill,
      autoRefillAmountEth: v.autoRefillAmountEth.trim(),
      requireVerifiedWallet: verifiedOnly,
    });
  }
  return (
    <form onSubmit={submit} noValidate aria-label="Spend limits" className="space-y-4">
      <p className="flex flex-wrap items-center gap-2 text-sm text-slate-600">
        These limits apply to {envWord(config.environment)} rewards and the {envWord(config.environment)} pool. <Scope env={config.environment} />
      </p>
      {!canEdit && <Notice tone="info">Only the owner can change spend limits.</Notice>}
      {top && <Notice tone="danger">{top}</Notice>}
      <fieldset disabled={!canEdit} className="space-y-4">
        <div className="grid gap-4 sm:grid-cols-3">
          <EthAmountField label="Max ETH per user per day" name="maxEthPerDayPerUser" error={errorFor(errs, "maxEthPerDayPerUser")} hint="Empty: no cap" value={v.maxEthPerDayPerUser} onChange={(eth) => setV((x) => ({ ...x, maxEthPerDayPerUser: eth }))} />
          <EthAmountField label="Max referral ETH per event" name="maxReferralEthPerEvent" error={errorFor(errs, "maxReferralEthPerEvent")} hint="Empty: no cap" value={v.maxReferralEthPerEvent} onChange={(eth) => setV((x) => ({ ...x, maxReferralEthPerEvent: eth }))} />
          <EthAmountField label="Max bonus ETH per event" name="maxBonusEthPerEvent" error={errorFor(errs, "maxBonusEthPerEvent")} hint="Empty: no cap" value={v.maxBonusEthPerEvent} onChange={(eth) => setV((x) => ({ ...x, maxBonusEthPerEvent: eth }))} />
          <EthAmountField label="Low-pool alert" name="lowPoolAlertEth" error={errorFor(errs, "lowPoolAlertEth")} hint="Alert when the pool drops below this." value={v.lowPoolAlertEth} onChange={(eth) => setV((x) => ({ ...x, lowPoolAlertEth: eth }))} />
          <EthAmountField label="Auto-refill amount" name="autoRefillAmountEth" error={errorFor(errs, "autoRefillAmountEth")} value={v.autoRefillAmountEth} onChange={(eth) => setV((x) => ({ ...x, autoRefillAmountEth: eth }))} />
        </div>
        <div className="border-t border-slate-100">
          <Toggle label="Auto-refill" description="Record a refill request when the pool drops below the alert threshold." checked={autoRefill} onChange={setAutoRefill} disabled={!canEdit} />
          <Toggle
            label="Pay verified wallets only"
            description="Shared by test and live: payouts go only to wallets the participant proved by signing in their portal; a wallet changed by the SDK or here is unverified until signed again."
            checked={verifiedOnly}
            onChange={setVerifiedOnly}
            disabled={!canEdit}
          />
        </div>
      </fieldset>
      {canEdit && (
        <div className="flex justify-end">
          <Button type="submit" loading={update.isPending}>Save spend limits</Button>
        </div>
      )}
    </form>
  );
}

const lines = (s: string) => s.split("\n").map((l) => l.trim()).filter(Boolean);

/** Referrers' withdrawal requests in the portal (business-wide): on or off, and their minimum. The owner or an admin. */
function WithdrawalSettingsForm({ config, canEdit }: { config: Config; canEdit: boolean }) {
  const toast = useToast();
  const utils = trpc.useUtils();
  const s = config.spend;
  const [enabled, setEnabled] = useState(s.withdrawalsEnabled);
  const [min, setMin] = useState(s.minWithdrawalEth);
  const update = trpc.config.updateSpend.useMutation({
    onSuccess: (c) => {
      utils.config.get.setData({ environment: c.environment }, c);
      toast("success", "Withdrawal settings saved");
    },
  });
  const errs = fieldErrors(update.error);
  const top = formError(update.error, ["withdrawalsEnabled", "minWithdrawalEth"]);
  function submit(e: FormEvent) {
    e.preventDefault();
    update.mutate({ withdrawalsEnabled: enabled, minWithdrawalEth: min.trim() });
  }
  return (
    <form onSubmit={submit} noValidate aria-label="Withdrawal settings" className="space-y-4">
      {!canEdit && <Notice tone="info">Only the owner or an admin can change withdrawal settings.</Notice>}
      {top && <Notice tone="danger">{top}</Notice>}
      <fieldset disabled={!canEdit} className="space-y-4">
        <Toggle label="Referrers may ask to be paid" description="A Withdraw button in their portal: the next payout run, which the request starts within a minute, pays them. Minimum payout, wallet and gas rules still apply." checked={enabled} onChange={setEnabled} disabled={!canEdit} />
        <EthAmountField label="Minimum withdrawal" name="minWithdrawalEth" error={errorFor(errs, "minWithdrawalEth")} hint="The smallest amount a referrer may ask for; never below the minimum payout." value={min} onChange={setMin} />
      </fieldset>
      {canEdit && (
        <div className="flex justify-end">
          <Button type="submit" loading={update.isPending}>Save withdrawal settings</Button>
        </div>
      )}
    </form>
  );
}

/** Payout settings of the environment in view: holding period, minimum payout, scheduled payouts, reversal events. */
function PayoutSettingsForm({ config, canEdit }: { config: Config; canEdit: boolean }) {
  const toast = useToast();
  const utils = trpc.useUtils();
  const s = config.spend;
  const [v, setV] = useState({ payoutHoldDays: String(s.payoutHoldDays), minPayoutEth: s.minPayoutEth, reversalEvents: s.reversalEvents.join("\n") });
  const [auto, setAuto] = useState(s.autoPayoutEnabled);
  const [daysError, setDaysError] = useState<string | null>(null);
  const update = trpc.config.updateSpend.useMutation({
    onSuccess: (c) => {
      utils.config.get.setData({ environment: c.environment }, c);
      void utils.payouts.queue.invalidate();
      toast("success", "Payout settings saved");
    },
  });
  const errs = fieldErrors(update.error);
  const top = formError(update.error, [...Object.keys(v), "autoPayoutEnabled"]);
  const set = (k: keyof typeof v) => (e: { target: { value: string } }) => setV((x) => ({ ...x, [k]: e.target.value }));
  function submit(e: FormEvent) {
    e.preventDefault();
    const days = v.payoutHoldDays.trim();
    if (!/^\d{1,2}$/.test(days) || Number(days) > 90) {
      setDaysError("Enter a whole number of days from 0 to 90");
      return;
    }
    setDaysError(null);
    update.mutate({ environment: config.environment, payoutHoldDays: Number(days), minPayoutEth: v.minPayoutEth.trim(), autoPayoutEnabled: auto, reversalEvents: lines(v.reversalEvents) });
  }
  return (
    <form onSubmit={submit} noValidate aria-label="Payout settings" className="space-y-4">
      <p className="flex flex-wrap items-center gap-2 text-sm text-slate-600">
        When {envWord(config.environment)} rewards are paid out to participants&apos; wallets. <Scope env={config.environment} />
      </p>
      {!canEdit && <Notice tone="info">Only the owner can change payout settings.</Notice>}
      {top && <Notice tone="danger">{top}</Notice>}
      <fieldset disabled={!canEdit} className="space-y-4">
        <div className="grid gap-4 sm:grid-cols-2">
          <Field label="Holding period (days)" error={daysError ?? errorFor(errs, "payoutHoldDays")} hint="A reward waits this long before it can be paid out (0–90), so refunds can reverse it first.">
            {(p) => <Input {...p} name="payoutHoldDays" inputMode="numeric" value={v.payoutHoldDays} onChange={set("payoutHoldDays")} maxLength={2} />}
          </Field>
          <EthAmountField label="Minimum payout" name="minPayoutEth" error={errorFor(errs, "minPayoutEth")} hint="A participant is paid once their payable rewards reach this. 0: any amount." value={v.minPayoutEth} onChange={(eth) => setV((x) => ({ ...x, minPayoutEth: eth }))} />
        </div>
        <Field label="Reversal events" error={errorFor(errs, "reversalEvents")} hint="One event name per line (e.g. refund). Tracking one reverses the referral's rewards.">
          {(p) => <Textarea {...p} name="reversalEvents" rows={3} value={v.reversalEvents} onChange={set("reversalEvents")} />}
        </Field>
        <div className="border-t border-slate-100">
          <Toggle label="Automatic payouts" description="Run payouts on a schedule; otherwise they run when you press Run payouts on the Balance page." checked={auto} onChange={setAuto} disabled={!canEdit} />
        </div>
      </fieldset>
      {canEdit && (
        <div className="flex justify-end">
          <Button type="submit" loading={update.isPending}>Save payout settings</Button>
        </div>
      )}
    </form>
  );
}

const FIAT = ["USD", "EUR", "GBP", "JPY", "CHF", "CAD", "AUD"] as const;
type Pricing = RouterOutputs["config"]["pricing"];

/** "3000" → "3,000" for a sentence (exact). */
const grouped = (d: string) => {
  const [w, f = ""] = d.split(".");
  const frac = f.replace(/0+$/, "");
  return `${w.replace(/\B(?=(\d{3})+(?!\d))/g, ",")}${frac ? `.${frac}` : ""}`;
};

/** The price in force per currency, in words: "1 ETH = 3,000 USD (fixed rate)" or why there is none. */
function PricesNow({ pricing }: { pricing: Pricing }) {
  const entries = Object.entries(pricing.prices);
  const { symbol } = useAsset();
  if (!entries.length) return <p className="text-sm text-slate-600" data-testid="prices-now">No price yet: events with amounts in other currencies than {symbol} wait until one exists.</p>;
  return (
    <ul className="space-y-1 text-sm" data-testid="prices-now" aria-label="Prices now">
      {entries.map(([c, p]) => (
        <li key={c} className="[overflow-wrap:anywhere]">
          {p.rate ? (
            <span><strong>1 {symbol} = {grouped(p.rate)} {c}</strong> <span className="text-xs text-slate-500">({p.source === "FIXED" ? "fixed rate" : `Chainlink feed${p.at ? `, ${formatDateTime(p.at)}` : ""}`})</span></span>
          ) : (
            <span><strong>{c}: no usable price</strong> <span className="text-xs text-slate-600">{p.problem ?? "no rate set"}. Events in {c} wait until a price exists.</span></span>
          )}
        </li>
      ))}
    </ul>
  );
}

/** Prices of the environment in view (owner or admin): fixed rates or Chainlink feeds, and the default currency of event amounts. */
function PricingForm({ pricing, defaultCurrency, canEdit }: { pricing: Pricing; defaultCurrency: Config["general"]["defaultCurrency"]; canEdit: boolean }) {
  const env = pricing.environment;
  const { symbol } = useAsset();
  const toast = useToast();
  const utils = trpc.useUtils();
  const [source, setSource] = useState(pricing.source);
  const [rates, setRates] = useState<Record<string, string>>({ ...pricing.rates });
  const [feeds, setFeeds] = useState<Record<string, string>>({ ...pricing.feeds });
  const [maxAge, setMaxAge] = useState(String(pricing.maxAgeSeconds));
  const [currency, setCurrency] = useState(defaultCurrency);
  const [local, setLocal] = useState<Record<string, string>>({});
  const update = trpc.config.updatePricing.useMutation();
  const general = trpc.config.updateGeneral.useMutation();
  const errs = { ...fieldErrors(update.error), ...fieldErrors(general.error), ...local };
  const top = formError(update.error, ["source", "rates", "feeds", "maxAgeSeconds"]) ?? formError(general.error, ["defaultCurrency"]);
  const pending = update.isPending || general.isPending;
  async function submit(e: FormEvent) {
    e.preventDefault();
    const problems: Record<string, string> = {};
    const filled = (m: Record<string, string>): Record<string, string> => Object.fromEntries(Object.entries(m).map(([k, x]) => [k, x.trim()]).filter(([, x]) => x !== ""));
    const r = filled(rates);
    const f = filled(feeds);
    for (const [c, x] of Object.entries(r)) if (!/^(0|[1-9]\d{0,59})(\.\d{1,18})?$/.test(x) || !/[1-9]/.test(x)) problems[`rates.${c}`] = `Enter the price of 1 ${symbol} in ${c} as a number above 0 (e.g. 3000.00), or leave it empty for no price.`;
    for (const [c, x] of Object.entries(f)) if (!/^0x[0-9a-fA-F]{40}$/.test(x)) problems[`feeds.${c}`] = `Enter the ${c} feed's contract address (0x and 40 hexadecimal characters), or leave it empty.`;
    const age = readWholeNumber(maxAge, { min: 1, max: 604_800, what: "the maximum age in seconds", emptyMeans: "the default (one hour)" });
    if (!age.ok) problems.maxAgeSeconds = age.message;
    setLocal(problems);
    if (Object.keys(problems).length || !age.ok) {
      update.reset();
      general.reset();
      return;
    }
    try {
      const saved = await update.mutateAsync({ environment: env, source, rates: r, feeds: f, maxAgeSeconds: age.value ?? 3600 });
      utils.config.pricing.setData({ environment: env }, saved);
      if (currency !== defaultCurrency) {
        const c = await general.mutateAsync({ environment: env, defaultCurrency: currency });
        utils.config.get.setData({ environment: c.environment }, c);
      }
      toast("success", "Pricing saved");
    } catch {
      /* shown at the fields */
    }
  }
  return (
    <form onSubmit={(e) => void submit(e)} noValidate aria-label="Pricing" className="space-y-4">
      <p className="flex flex-wrap items-center gap-2 text-sm text-slate-600">
        The price of 1 {symbol} that converts {envWord(env)} event amounts and commission rules into {symbol}. <Scope env={env} />
      </p>
      <PricesNow pricing={pricing} />
      {!canEdit && <Notice tone="info">Only the owner or an admin can change pricing.</Notice>}
      {top && <Notice tone="danger">{top}</Notice>}
      <fieldset disabled={!canEdit} className="min-w-0 space-y-4">
        <div className="grid gap-4 sm:grid-cols-2">
          <Field label="Default currency" error={errorFor(errs, "defaultCurrency")} hint="The currency of an event amount sent without one.">
            {(p) => (
              <Select {...p} name="defaultCurrency" value={currency} onChange={(e) => setCurrency(e.target.value as typeof currency)}>
                {[...FIAT, "ETH"].map((c) => <option key={c} value={c}>{c}</option>)}
              </Select>
            )}
          </Field>
          <Field label="Price source" error={errorFor(errs, "source")} hint={source === "FIXED" ? "Prices you set here." : "Read on chain from Chainlink price feeds (AggregatorV3) when an event is rewarded."}>
            {(p) => (
              <Select {...p} name="source" value={source} onChange={(e) => setSource(e.target.value as Pricing["source"])}>
                <option value="FIXED">Fixed rates</option>
                <option value="CHAINLINK">Chainlink price feeds</option>
              </Select>
            )}
          </Field>
        </div>
        {source === "FIXED" ? (
          <div className="grid gap-4 sm:grid-cols-3">
            {FIAT.map((c) => (
              <Field key={c} label={`1 ${symbol} in ${c}`} error={errorFor(errs, `rates.${c}`)}>
                {(p) => <Input {...p} name={`rates.${c}`} inputMode="decimal" value={rates[c] ?? ""} onChange={(e) => setRates((x) => ({ ...x, [c]: e.target.value }))} placeholder="No price" maxLength={40} />}
              </Field>
            ))}
          </div>
        ) : (
          <div className="space-y-4">
            <div className="grid gap-4 sm:grid-cols-2">
              {FIAT.map((c) => (
                <Field key={c} label={`${c} feed address`} error={errorFor(errs, `feeds.${c}`)}>
                  {(p) => <Input {...p} name={`feeds.${c}`} className="font-mono" value={feeds[c] ?? ""} onChange={(e) => setFeeds((x) => ({ ...x, [c]: e.target.value }))} placeholder="0x…" maxLength={42} spellCheck={false} />}
                </Field>
              ))}
            </div>
            <Field label="Maximum price age (seconds)" error={errorFor(errs, "maxAgeSeconds")} hint="A feed's price older than this is not used: events wait for a fresh one.">
              {(p) => <Input {...p} name="maxAgeSeconds" inputMode="numeric" value={maxAge} onChange={(e) => setMaxAge(e.target.value)} maxLength={9} />}
            </Field>
          </div>
        )}
      </fieldset>
      {canEdit && (
        <div className="flex justify-end">
          <Button type="submit" loading={pending}>Save pricing</Button>
        </div>
      )}
    </form>
  );
}

function TierForm({ tier, onDone }: { tier?: Tier; onDone: () => void }) {
  const toast = useToast();
  const utils = trpc.useUtils();
  const [v, setV] = useState({ name: tier?.name ?? "", minReferrals: String(tier?.minReferrals ?? ""), referralRewardEth: tier?.referralRewardEth ?? "", bonusEth: tier?.bonusEth ?? "0" });
  const done = (msg: string) => {
    void utils.tiers.invalidate();
    toast("success", msg);
    onDone();
  };
  const create = trpc.tiers.create.useMutation({ onSuccess: (t) => done(`Tier ${t.name} created`) });
  const update = trpc.tiers.update.useMutation({ onSuccess: (t) => done(`Tier ${t.name} saved`) });
  const m = tier ? update : create;
  const errs = fieldErrors(m.error);
  const ruleError = contractError(m.error);
  // A threshold another tier already uses is a problem of the "From referrals" field.
  const overlap = ruleError?.code === "TIER_OVERLAP" ? ruleError.message : undefined;
  const top = overlap ? null : formError(m.error, ["name", "minReferrals", "referralRewardEth", "bonusEth"]);
  const set = (k: keyof typeof v) => (e: { target: { value: string } }) => setV((x) => ({ ...x, [k]: e.target.value }));
  function submit(e: FormEvent) {
    e.preventDefault();
    const min = /^\d+$/.test(v.minReferrals.trim()) ? Number(v.minReferrals.trim()) : NaN;
    const body = { name: v.name.trim(), minReferrals: min, referralRewardEth: v.referralRewardEth.trim(), bonusEth: v.bonusEth.trim() || "0" };
    if (tier) update.mutate({ tierId: tier.tierId, ...body });
    else create.mutate(body);
  }
  return (
    <form onSubmit={submit} noValidate aria-label={tier ? `Edit tier ${tier.name}` : "New tier"} className="space-y-3">
      {top && <Notice tone="danger">{top}</Notice>}
      <div className="grid gap-3 sm:grid-cols-4">
        <Field label="Tier name" error={errorFor(errs, "name")}>{(p) => <Input {...p} name="name" value={v.name} onChange={set("name")} maxLength={100} placeholder="Gold" />}</Field>
        <Field label="From referrals" error={errorFor(errs, "minReferrals") ?? overlap}>{(p) => <Input {...p} name="minReferrals" inputMode="numeric" value={v.minReferrals} onChange={set("minReferrals")} placeholder="10" />}</Field>
        <EthAmountField label="Referral reward" name="referralRewardEth" error={errorFor(errs, "referralRewardEth")} value={v.referralRewardEth} onChange={(eth) => setV((x) => ({ ...x, referralRewardEth: eth }))} placeholder="0.01" />
        <EthAmountField label="Bonus" name="bonusEth" error={errorFor(errs, "bonusEth")} value={v.bonusEth} onChange={(eth) => setV((x) => ({ ...x, bonusEth: eth }))} />
      </div>
      <div className="flex justify-end gap-2">
        <Button variant="ghost" onClick={onDone}>Cancel</Button>
        <Button type="submit" loading={m.isPending}>{tier ? "Save tier" : "Add tier"}</Button>
      </div>
    </form>
  );
}

function Tiers({ strategy, canEdit }: { strategy: "FIXED" | "TIERED"; canEdit: boolean }) {
  const tiers = trpc.tiers.list.useQuery({});
  const toast = useToast();
  const utils = trpc.useUtils();
  const [editing, setEditing] = useState<Tier | "new" | null>(null);
  const [deleting, setDeleting] = useState<Tier | null>(null);
  const del = trpc.tiers.delete.useMutation({
    onSuccess: (t) => {
      void utils.tiers.invalidate();
      toast("success", `Tier ${t.name} deleted`);
      setDeleting(null);
    },
    onError: (e) => toast("error", formError(e) ?? "Could not delete the tier"),
  });
  return (
    <Card title={<span className="flex flex-wrap items-center gap-2">Reward tiers <Scope /></span>} description={strategy === "TIERED" ? "Referrers earn the amounts of the highest tier they reach, in test and live." : "Tiers apply when the reward strategy is Tiered."} actions={canEdit && editing === null && <Button size="sm" onClick={() => setEditing("new")}>Add tier</Button>} bodyClassName="p-5 pt-0">
      {editing === "new" && <div className="border-b border-slate-100 py-4"><TierForm onDone={() => setEditing(null)} /></div>}
      <DataList query={tiers} isEmpty={!tiers.data?.data.length} itemsLabel="tiers" skeleton={2} empty={<EmptyState title="No tiers yet">Add tiers such as Bronze (0+), Silver (5+) and Gold (20+) to reward your best referrers more.</EmptyState>} label="Tiers" head={
        <>
          <Th>Tier</Th>
          <Th>Referrals</Th>
          <Th className="text-right">Referral reward</Th>
          <Th className="text-right">Bonus</Th>
          <Th className="text-right"><span className="sr-only">Actions</span></Th>
        </>
      }>
        {(tiers.data?.data ?? []).map((t) =>
          editing !== "new" && editing?.tierId === t.tierId ? (
            <tr key={t.tierId}>
              <td colSpan={5} className="px-5 py-4"><TierForm tier={t} onDone={() => setEditing(null)} /></td>
            </tr>
          ) : (
            <tr key={t.tierId} data-testid="tier-row">
              <Td className="font-medium text-slate-900">{t.name}</Td>
              <Td className="whitespace-nowrap">{t.minReferrals}{t.maxReferrals === null ? "+" : ` – ${t.maxReferrals}`}</Td>
              <Td className="text-right whitespace-nowrap"><Eth value={t.referralRewardEth} /></Td>
              <Td className="text-right whitespace-nowrap"><Eth value={t.bonusEth} /></Td>
              <Td className="text-right whitespace-nowrap">
                {canEdit && (
                  <div className="flex justify-end gap-1.5">
                    <Button size="sm" variant="secondary" onClick={() => setEditing(t)}>Edit</Button>
                    <Button size="sm" variant="secondary" className="!text-rose-700" onClick={() => setDeleting(t)}>Delete</Button>
                  </div>
                )}
              </Td>
            </tr>
          ),
        )}
      </DataList>
      {deleting && (
        <ConfirmDialog onClose={() => setDeleting(null)} title="Delete this tier?" confirmLabel="Delete tier" pending={del.isPending} onConfirm={() => del.mutate({ tierId: deleting.tierId })}>
          <p>Referrers in <strong>{deleting.name}</strong> fall back to the tier below. Rewards already paid are not changed.</p>
        </ConfirmDialog>
      )}
    </Card>
  );
}

function Categorization() {
  const { env } = useEnvironment();
  const q = trpc.tiers.categorization.useQuery({ environment: env });
  const c = q.data;
  return (
    <Card title="Tier categorization" description={`How your ${env.toLowerCase()} participants fall into tiers.`}>
      {q.isLoading ? (
        <LoadingRows rows={2} label="Loading categorization" />
      ) : q.error ? (
        <ErrorState error={q.error} onRetry={() => q.refetch()} />
      ) : c && (
        <div className="space-y-5">
          <div className="flex flex-wrap gap-3">
            <div className="min-w-28 flex-1 rounded-lg bg-slate-50 px-4 py-3 ring-1 ring-slate-200">
              <p className="text-xs text-slate-500">No tier yet</p>
              <p className="text-lg font-semibold">{c.untiered.participantCount}</p>
            </div>
            {c.tiers.map((t) => (
              <div key={t.tierId} className="min-w-28 flex-1 rounded-lg bg-indigo-50 px-4 py-3 ring-1 ring-indigo-100" data-testid="tier-bucket">
                <p className="text-xs text-indigo-700">{t.name} · {t.minReferrals}{t.maxReferrals === null ? "+" : `–${t.maxReferrals}`}</p>
                <p className="text-lg font-semibold text-indigo-950">{t.participantCount}</p>
              </div>
            ))}
          </div>
          {c.closestToNext.length > 0 && (
            <div>
              <h3 className="mb-2 text-sm font-semibold text-slate-800">Closest to the next tier</h3>
              <ul className="divide-y divide-slate-100 text-sm">
                {c.closestToNext.map((p) => (
                  <li key={p.participantId} className="flex flex-wrap justify-between gap-2 py-2">
                    <span>{p.name ?? p.email ?? p.referralCode} <span className="text-xs text-slate-500">({p.qualifiedReferrals} qualified)</span></span>
                    <span className="text-xs"><Badge color="indigo">{p.referralsToNext} to {p.nextTierName}</Badge></span>
                  </li>
                ))}
              </ul>
            </div>
          )}
          <p className="text-xs text-slate-500">{c.totalParticipants} participants in total.</p>
        </div>
      )}
    </Card>
  );
}

export function ConfigurationPage() {
  const { isOwner, canChangeMoney } = useMe();
  const { env } = useEnvironment();
  const config = trpc.config.get.useQuery({ environment: env });
  // Forms hold their own draft and restart from the server copy only when it really changed
  // (after a save, or someone else's), not on every background refetch.
  const generalKey = JSON.stringify([config.data?.environment, config.data?.general ?? null]);
  const spendKey = JSON.stringify([config.data?.environment, config.data?.spend ?? null]);
  const pricing = trpc.config.pricing.useQuery({ environment: env });
  // The stored settings only: the price now (a feed's latest round) changes without a save.
  const pricingKey = JSON.stringify([pricing.data?.environment, pricing.data?.updatedAt, pricing.data?.source, config.data?.general.defaultCurrency]);
  return (
    <>
      <PageHeader title="Configuration" description={`How rewards are computed and what they may cost. Amounts and limits below are those of the ${envWord(env)} environment; switch at the top to see the other.`} />
      {config.isLoading ? (
        <Card><LoadingRows rows={6} label="Loading configuration" /></Card>
      ) : config.error ? (
        <ErrorState error={config.error} onRetry={() => config.refetch()} />
      ) : (
        <div className="space-y-6">
          <Card title="General"><GeneralForm key={generalKey} config={config.data!} canChangeMoney={canChangeMoney} /></Card>
          <Card title={`Referral links · ${env === "TEST" ? "Test" : "Live"}`} description="Each participant's link is /r/CODE on this service; clicks are counted and lead here."><LinksForm key={generalKey} config={config.data!} canChangeMoney={canChangeMoney} /></Card>
          <Card title={`Spend limits · ${env === "TEST" ? "Test" : "Live"}`} description="Caps apply to every reward; the pool never goes negative."><SpendForm key={spendKey} config={config.data!} canEdit={isOwner} /></Card>
          <Card title={`Payouts · ${env === "TEST" ? "Test" : "Live"}`} description="Rewards become payable after the holding period; payouts send them on chain."><PayoutSettingsForm key={spendKey} config={config.data!} canEdit={isOwner} /></Card>
          <Card title="Withdrawals" description="Referrers may ask to be paid now instead of waiting for your schedule (both environments)."><WithdrawalSettingsForm key={spendKey} config={config.data!} canEdit={canChangeMoney} /></Card>
          <Card title={`Pricing · ${env === "TEST" ? "Test" : "Live"}`} description="Sales are priced in dollars or euros while the pool holds ETH: every commission records the price it used.">
            {pricing.isLoading ? <LoadingRows rows={3} label="Loading pricing" /> : pricing.error ? <ErrorState error={pricing.error} onRetry={() => pricing.refetch()} /> : <PricingForm key={pricingKey} pricing={pricing.data!} defaultCurrency={config.data!.general.defaultCurrency} canEdit={canChangeMoney} />}
          </Card>
          <Tiers strategy={config.data!.general.rewardStrategy} canEdit={canChangeMoney} />
          <Categorization />
        </div>
      )}
    </>
  );
}
