"use client";
// /portal/sign-in: a referrer asks for a portal link by email (POST /portal/api/sign-in). The
// answer is the same whether or not the address belongs to a referrer.
import { useState, type FormEvent } from "react";
import { Button, Field, Input, Notice } from "../ui";

export function PortalSignInForm({ businessId }: { businessId: string }) {
  const [email, setEmail] = useState("");
  const [state, setState] = useState<{ sent?: string; problem?: string; busy?: boolean }>({});
  async function submit(e: FormEvent) {
    e.preventDefault();
    setState({ busy: true });
    const r = await fetch("/portal/api/sign-in", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ businessId, email }) }).catch(() => null);
    const body = (await r?.json().catch(() => null)) as { message?: string; error?: { message: string } } | null;
    if (r?.status === 202) setState({ sent: body?.message ?? "Check your inbox." });
    else setState({ problem: body?.error?.message ?? "The request failed; try again." });
  }
  if (state.sent) return <div className="mt-6"><Notice tone="success" title="Check your inbox">{state.sent} The link works once, for 24 hours.</Notice></div>;
  return (
    <form onSubmit={submit} className="mt-6 space-y-4" aria-label="Ask for a portal link">
      <Field label="Your email" error={state.problem}>
        {(p) => <Input {...p} type="email" name="email" required maxLength={254} autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} />}
      </Field>
      <Button type="submit" loading={state.busy}>
        Email me a link
      </Button>
    </form>
  );
}
