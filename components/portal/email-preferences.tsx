"use client";
// The referrer's email preferences in the portal: the same choices as the unsubscribe link of
// each email (GET/POST /portal/api/notifications).
import { useEffect, useState } from "react";
import { Card, Toggle } from "../ui";

const KINDS = [
  ["REWARD_EARNED", "Rewards you earn", "At most one email an hour"],
  ["PAYOUT_SENT", "Payouts sent to you", undefined],
  ["PAYOUT_FAILED", "Payouts that fail", "With what to do about it"],
  ["WALLET_MISSING", "Reminders to add a wallet", "At most weekly"],
  ["REWARD_REVERSED", "Reversed rewards", undefined],
] as const;
type Choices = Record<(typeof KINDS)[number][0], boolean>;

export function EmailPreferences() {
  const [choices, setChoices] = useState<Choices | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    fetch("/portal/api/notifications")
      .then(async (r) => (r.ok ? setChoices((await r.json()) as Choices) : setProblem("Your email preferences could not be loaded.")))
      .catch(() => setProblem("Your email preferences could not be loaded."));
  }, []);
  async function change(kind: keyof Choices, on: boolean) {
    setProblem(null);
    const r = await fetch("/portal/api/notifications", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ [kind]: on }) }).catch(() => null);
    if (r?.ok) setChoices((await r.json()) as Choices);
    else setProblem("That change was not saved; try again.");
  }
  return (
    <Card title="Emails" description="Which emails you receive about this program. Each email also has a link to stop that kind.">
      {KINDS.map(([kind, label, hint]) => (
        <Toggle key={kind} label={label} description={hint} checked={choices?.[kind] ?? true} disabled={!choices} onChange={(v) => change(kind, v)} />
      ))}
      {problem ? <p className="mt-2 text-sm text-red-700" role="alert">{problem}</p> : null}
    </Card>
  );
}
