"use client";
// Anti-abuse rules for referrals: self-referral, duplicates, daily limits, blocked domains,
// disposable emails, review hold and attribution window. The owner or an admin edits them;
// members read them.
import { useState, type FormEvent } from "react";
import { errorFor, fieldErrors, formError } from "../errors";
import { readWholeNumber } from "../numbers";
import { useMe } from "../shell";
import { useToast } from "../toast";
import { trpc, type RouterOutputs } from "../trpc";
import { reasonText } from "../reasons";
import { Button, Card, ErrorState, Field, Input, LoadingRows, Notice, PageHeader, Select, Textarea, Toggle } from "../ui";

type Settings = RouterOutputs["referrals"]["settings"];

const limitField = { min: 1, max: 1_000_000, what: "the daily limit", emptyMeans: "no limit" };
const windowField = { min: 1, max: 3650, what: "the window in days", emptyMeans: "no window" };
const velocityField = { min: 1, max: 100_000, what: "the click velocity limit", emptyMeans: "the default" };
const SIGNAL_LABELS: Record<keyof Settings["signals"], string> = {
  SAME_VISITOR: "Same visitor as the referrer",
  CLICK_VELOCITY: "Click velocity",
  WALLET_SHARED: "Shared payout wallet",
  NO_CLICK: "No click before sign-up",
};

function SettingsForm({ settings }: { settings: Settings }) {
  const { canChangeMoney } = useMe();
  const toast = useToast();
  const utils = trpc.useUtils();
  const [flags, setFlags] = useState({ blockSelfReferral: settings.blockSelfReferral, oneReferralPerReferredUser: settings.oneReferralPerReferredUser, blockDisposableEmails: settings.blockDisposableEmails, holdForReview: settings.holdForReview });
  const [maxPerDay, setMaxPerDay] = useState(settings.maxReferralsPerReferrerPerDay?.toString() ?? "");
  const [windowDays, setWindowDays] = useState(settings.attributionWindowDays?.toString() ?? "");
  const [domains, setDomains] = useState(settings.blockedEmailDomains.join("\n"));
  const [signals, setSignals] = useState(settings.signals);
  const [velocity, setVelocity] = useState(String(settings.clickVelocityPerHour));
  const update = trpc.referrals.updateSettings.useMutation({
    onSuccess: (s) => {
      utils.referrals.settings.setData({}, s);
      setDomains(s.blockedEmailDomains.join("\n"));
      toast("success", "Referral rules saved");
    },
  });
  // Set on submit: a value that is not a whole number is refused here, never sent as "no limit".
  const [local, setLocal] = useState<Record<string, string>>({});
  const errs = { ...fieldErrors(update.error), ...local };
  const top = formError(update.error, ["maxReferralsPerReferrerPerDay", "attributionWindowDays", "blockedEmailDomains", ...Object.keys(flags)]);
  const domainLines = domains.split(/[\n,\s]+/).map((s) => s.trim()).filter(Boolean);
  const domainError = (() => {
    const key = Object.keys(errs).find((k) => k.startsWith("blockedEmailDomains"));
    if (!key) return undefined;
    const i = Number(key.split(".")[1]);
    return Number.isInteger(i) && domainLines[i] ? `${domainLines[i]}: ${errs[key]}` : errs[key];
  })();
  function submit(e: FormEvent) {
    e.preventDefault();
    const limit = readWholeNumber(maxPerDay, limitField);
    const window = readWholeNumber(windowDays, windowField);
    const perHour = readWholeNumber(velocity, velocityField);
    const problems: Record<string, string> = {};
    if (!limit.ok) problems.maxReferralsPerReferrerPerDay = limit.message;
    if (!window.ok) problems.attributionWindowDays = window.message;
    if (!perHour.ok) problems.clickVelocityPerHour = perHour.message;
    setLocal(problems);
    if (!limit.ok || !window.ok || !perHour.ok) {
      update.reset();
      return;
    }
    update.mutate({ ...flags, maxReferralsPerReferrerPerDay: limit.value, attributionWindowDays: window.value, blockedEmailDomains: domainLines, signals, clickVelocityPerHour: perHour.value ?? undefined });
  }
  const flag = (k: keyof typeof flags) => (v: boolean) => setFlags((f) => ({ ...f, [k]: v }));
  return (
    <form onSubmit={submit} noValidate aria-label="Referral rules" className="space-y-6">
      {top && <Notice tone="danger">{top}</Notice>}
      {!canChangeMoney && <Notice tone="info">Only the owner or an admin can change referral rules.</Notice>}
      <fieldset disabled={!canChangeMoney} className="min-w-0 space-y-6">
      <Card title="Rules">
        <div className="divide-y divide-slate-100">
          <Toggle label="Block self-referral" description="Refuse referrals where the referrer and the referred user are the same person (email or user id)." checked={flags.blockSelfReferral} onChange={flag("blockSelfReferral")} />
          <Toggle label="One referral per referred user" description="A person can be referred only once." checked={flags.oneReferralPerReferredUser} onChange={flag("oneReferralPerReferredUser")} />
          <Toggle label="Block disposable email addresses" description="Refuse referred users with throwaway email domains." checked={flags.blockDisposableEmails} onChange={flag("blockDisposableEmails")} />
          <Toggle label="Hold new referrals for review" description="New referrals and their events are flagged; rewards wait until you approve them on the Events page." checked={flags.holdForReview} onChange={flag("holdForReview")} />
        </div>
      </Card>
      <Card title="Limits">
        <div className="grid gap-4 sm:grid-cols-2">
          <Field label="Max referrals per referrer per day" error={errorFor(errs, "maxReferralsPerReferrerPerDay")} hint="Empty: no limit">{(p) => <Input {...p} name="maxReferralsPerReferrerPerDay" inputMode="numeric" value={maxPerDay} onChange={(e) => setMaxPerDay(e.target.value)} />}</Field>
          <Field label="Attribution window (days)" error={errorFor(errs, "attributionWindowDays")} hint="Events after this many days no longer qualify a referral. Empty: no window.">{(p) => <Input {...p} name="attributionWindowDays" inputMode="numeric" value={windowDays} onChange={(e) => setWindowDays(e.target.value)} />}</Field>
        </div>
        <Field className="mt-4" label="Blocked email domains" error={domainError} hint="One per line, e.g. example.org">{(p) => <Textarea {...p} name="blockedEmailDomains" value={domains} onChange={(e) => setDomains(e.target.value)} rows={4} />}</Field>
      </Card>
      <Card title="Fraud signals" description="From referral-link clicks and payout wallets. Flag holds the referral for your review; reject refuses it.">
        <div className="grid gap-4 sm:grid-cols-2">
          {(Object.keys(signals) as Array<keyof Settings["signals"]>).map((s) => (
            <Field key={s} label={SIGNAL_LABELS[s]} hint={reasonText(s)} error={errorFor(errs, `signals.${s}`)}>
              {(p) => (
                <Select {...p} name={`signals.${s}`} value={signals[s]} onChange={(e) => setSignals((x) => ({ ...x, [s]: e.target.value as Settings["signals"][typeof s] }))}>
                  <option value="OFF">Off</option>
                  <option value="FLAG">Flag for review</option>
                  <option value="REJECT">Reject</option>
                </Select>
              )}
            </Field>
          ))}
          <Field label="Click velocity limit (per visitor per hour)" error={errorFor(errs, "clickVelocityPerHour")} hint="Counted clicks of one visitor across all links above this fire the click-velocity signal.">
            {(p) => <Input {...p} name="clickVelocityPerHour" inputMode="numeric" value={velocity} onChange={(e) => setVelocity(e.target.value)} />}
          </Field>
        </div>
      </Card>
      </fieldset>
      {canChangeMoney && (
        <div className="flex justify-end">
          <Button type="submit" loading={update.isPending}>Save rules</Button>
        </div>
      )}
    </form>
  );
}

export function ReferralSettingsPage() {
  const q = trpc.referrals.settings.useQuery({});
  return (
    <>
      <PageHeader title="Referral rules" description="Anti-abuse rules applied to every referral, in TEST and LIVE." />
      {q.isLoading ? <Card><LoadingRows rows={5} label="Loading rules" /></Card> : q.error ? <ErrorState error={q.error} onRetry={() => q.refetch()} /> : <SettingsForm settings={q.data!} />}
    </>
  );
}
