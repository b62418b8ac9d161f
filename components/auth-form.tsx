"use client";
// Sign-in and sign-up on the built-in provider. Sign-up also names the business the new owner runs.
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useState, useSyncExternalStore, type FormEvent } from "react";
import { signIn, signUp, type AuthResult } from "./auth-client";
import { trpc } from "./trpc";
import { Button, Field, Input, LoadingRows, Notice } from "./ui";

type FieldName = NonNullable<AuthResult["field"]>;

function safeNext(): string | null {
  const next = new URLSearchParams(window.location.search).get("next");
  return next && next.startsWith("/dashboard") ? next : null;
}

const noSubscription = () => () => {};

/**
 * The invitation token of an invite link (/sign-up?invite=…, or /sign-in?invite=… for someone who
 * has an account already); null elsewhere and on the server.
 */
function useInviteToken(): string | null {
  return useSyncExternalStore(noSubscription, () => new URLSearchParams(window.location.search).get("invite"), () => null);
}

export function AuthForm({ mode }: { mode: "sign-in" | "sign-up" }) {
  const router = useRouter();
  const inviteToken = useInviteToken();
  const accept = trpc.members.accept.useMutation();
  const invitation = trpc.members.invitation.useQuery({ token: inviteToken ?? "" }, { enabled: !!inviteToken && inviteToken.length >= 10, retry: false });
  const invite = inviteToken ? invitation.data : undefined;
  const [typed, setValues] = useState({ name: "", businessName: "", email: "", password: "" });
  // An invitation fixes the email: the one the owner invited.
  const values = invite ? { ...typed, email: invite.email } : typed;
  const invited = !!invite;
  const [errors, setErrors] = useState<Partial<Record<FieldName, string>>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  // Already signed in: straight to the dashboard (an invitation's sign-in page asks to sign in, then joins).
  useEffect(() => {
    if (mode === "sign-in" && inviteToken) return;
    let cancelled = false;
    fetch("/api/auth/get-session", { credentials: "same-origin", cache: "no-store" })
      .then((r) => (r.ok ? r.json() : null))
      .then((s: { user?: unknown } | null) => {
        if (!cancelled && s?.user) router.replace(safeNext() ?? "/dashboard");
      })
      .catch(() => {});
    return () => {
      cancelled = true;
    };
  }, [router, mode, inviteToken]);
  const set = (k: keyof typeof values) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [k]: e.target.value }));

  function validate(): boolean {
    const e: Partial<Record<FieldName, string>> = {};
    if (mode === "sign-up" && !values.name.trim()) e.name = "Enter your name.";
    if (mode === "sign-up" && !invited && !values.businessName.trim()) e.businessName = "Enter the name of your business.";
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(values.email.trim())) e.email = "Enter a valid email address.";
    if (mode === "sign-up" && values.password.length < 8) e.password = "Use at least 8 characters.";
    if (mode === "sign-in" && !values.password) e.password = "Enter your password.";
    setErrors(e);
    return Object.keys(e).length === 0;
  }

  async function onSubmit(ev: FormEvent) {
    ev.preventDefault();
    setFormError(null);
    if (!validate()) return;
    setPending(true);
    const email = values.email.trim();
    const result =
      mode === "sign-up"
        ? await signUp(invite && inviteToken ? { email, password: values.password, name: values.name.trim(), inviteToken } : { email, password: values.password, name: values.name.trim(), businessName: values.businessName.trim() })
        : await signIn({ email, password: values.password });
    if (result.ok && mode === "sign-in" && invite && inviteToken) {
      // Signed in with the invited account: the link's token makes it a member.
      try {
        await accept.mutateAsync({ token: inviteToken });
        router.replace("/dashboard");
      } catch (e) {
        setPending(false);
        setFormError((e as Error).message || "Something went wrong.");
      }
      return;
    }
    if (result.ok) {
      router.replace(mode === "sign-up" ? (invited ? "/dashboard" : "/dashboard/get-started") : (safeNext() ?? "/dashboard"));
      return;
    }
    setPending(false);
    if (mode === "sign-up" && invited && result.field === "email") {
      // The invited email has an account already: it joins by signing in through the same link.
      setFormError("An account with this email exists already: use “Sign in to join” below.");
      return;
    }
    if (result.field) setErrors({ [result.field]: result.message });
    else setFormError(result.message ?? "Something went wrong.");
  }

  return (
    <div className="flex min-h-screen items-center justify-center bg-gradient-to-br from-slate-50 via-white to-indigo-50 px-4 py-12">
      <div className="w-full max-w-md">
        <div className="mb-8 text-center">
          <span className="inline-grid h-11 w-11 place-items-center rounded-xl bg-gradient-to-br from-indigo-500 to-violet-600 text-lg font-bold text-white shadow">R</span>
          <h1 className="mt-4 text-2xl font-semibold tracking-tight text-slate-900">{invite ? `Join ${invite.businessName}` : mode === "sign-up" ? "Create your business account" : "Sign in to your dashboard"}</h1>
          <p className="mt-1 text-sm text-slate-600">{invite ? (mode === "sign-in" ? `You were invited as ${invite.email}. Sign in to that account to join.` : `You were invited as ${invite.email}. Choose your name and a password.`) : mode === "sign-up" ? "Track referrals and reward the people who bring you customers." : "Welcome back."}</p>
        </div>
        {inviteToken && invitation.isLoading && <LoadingRows rows={1} label="Checking the invitation" />}
        {inviteToken && invitation.error && (
          <div className="mb-4">
            <Notice tone="warning" title="This invitation link does not work">
              It was used already, cancelled, or has expired. Ask the owner of the business for a new link.{mode === "sign-up" ? " You can still create a business of your own below." : ""}
            </Notice>
          </div>
        )}
        <form onSubmit={onSubmit} noValidate className="space-y-4 rounded-2xl bg-white p-6 shadow-sm ring-1 ring-slate-200 sm:p-8" aria-label={mode === "sign-up" ? "Sign up" : "Sign in"}>
          {formError && <Notice tone="danger">{formError}</Notice>}
          {mode === "sign-up" && (
            <>
              <Field label="Your name" error={errors.name}>
                {(p) => <Input {...p} name="name" autoComplete="name" value={values.name} onChange={set("name")} maxLength={100} />}
              </Field>
              {!invited && (
                <Field label="Business name" error={errors.businessName}>
                  {(p) => <Input {...p} name="businessName" autoComplete="organization" value={values.businessName} onChange={set("businessName")} maxLength={120} />}
                </Field>
              )}
            </>
          )}
          <Field label="Email" error={errors.email}>
            {(p) => <Input {...p} name="email" type="email" autoComplete="email" value={values.email} onChange={set("email")} maxLength={254} readOnly={invited} />}
          </Field>
          <Field label="Password" error={errors.password} hint={mode === "sign-up" ? "At least 8 characters." : undefined}>
            {(p) => <Input {...p} name="password" type="password" autoComplete={mode === "sign-up" ? "new-password" : "current-password"} value={values.password} onChange={set("password")} maxLength={128} />}
          </Field>
          <Button type="submit" loading={pending} className="w-full">
            {invited ? (mode === "sign-in" ? "Sign in and join" : "Join the team") : mode === "sign-up" ? "Create account" : "Sign in"}
          </Button>
        </form>
        <p className="mt-6 text-center text-sm text-slate-600">
          {mode === "sign-up" ? (
            <>
              Already have an account?{" "}
              <Link href={invited && inviteToken ? `/sign-in?invite=${encodeURIComponent(inviteToken)}` : "/sign-in"} className="font-medium text-indigo-600 hover:text-indigo-500">
                {invited ? "Sign in to join" : "Sign in"}
              </Link>
            </>
          ) : (
            <>
              New here?{" "}
              <Link href="/sign-up" className="font-medium text-indigo-600 hover:text-indigo-500">
                Create a business account
              </Link>
            </>
          )}
        </p>
        {mode === "sign-up" && !invited && <p className="mt-2 text-center text-xs text-slate-600">Invited by a colleague? Open the invitation link they sent you: it asks for no business name.</p>}
      </div>
    </div>
  );
}
