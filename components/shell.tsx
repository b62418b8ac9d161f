"use client";
// The dashboard frame: navigation, the TEST/LIVE switch, the signed-in user, and the guard
// that sends visitors without a session to the sign-in page.
import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { createContext, useContext, useEffect, useState, type ReactNode } from "react";
import { signOut } from "./auth-client";
import { EnvironmentSwitch, useEnvironment } from "./environment";
import { contractError } from "./errors";
import { Icon, type IconName } from "./icons";
import { trpc, type RouterOutputs } from "./trpc";
import { Button, cx, Spinner } from "./ui";
import { DashboardPriceProvider } from "./money";

type Me = RouterOutputs["me"]["get"];
const MeContext = createContext<Me | null>(null);
/** The signed-in member. Only rendered inside the shell, after `me` has loaded. */
export function useMe(): Me & { isOwner: boolean; canChangeMoney: boolean } {
  const me = useContext(MeContext);
  if (!me) throw new Error("useMe outside the dashboard shell");
  // The owner or an admin may change what the pool pays (amounts, tiers, referral rules, recorded events).
  return { ...me, isOwner: me.role === "OWNER", canChangeMoney: me.role === "OWNER" || me.role === "ADMIN" };
}

export const ROLE_WORDS = { OWNER: "Owner", ADMIN: "Admin", MEMBER: "Member" } as const;

const NAV: Array<{ href: string; label: string; icon: IconName }> = [
  { href: "/dashboard", label: "Overview", icon: "home" },
  { href: "/dashboard/get-started", label: "Get started", icon: "rocket" },
  { href: "/dashboard/api-keys", label: "API keys", icon: "key" },
  { href: "/dashboard/webhooks", label: "Webhooks", icon: "pulse" },
  { href: "/dashboard/integrations", label: "Integrations", icon: "plug" },
  { href: "/dashboard/emails", label: "Emails", icon: "mail" },
  { href: "/dashboard/events", label: "Events", icon: "bolt" },
  { href: "/dashboard/referrals", label: "Referrals", icon: "users" },
  { href: "/dashboard/participants", label: "Participants", icon: "person" },
  { href: "/dashboard/rewards", label: "Rewards", icon: "gift" },
  { href: "/dashboard/balance", label: "Balance & funding", icon: "wallet" },
  { href: "/dashboard/proofs", label: "Proofs", icon: "check" },
  { href: "/dashboard/configuration", label: "Configuration", icon: "cog" },
  { href: "/dashboard/referral-settings", label: "Referral rules", icon: "shield" },
  { href: "/dashboard/commission-rules", label: "Commission rules", icon: "percent" },
  { href: "/dashboard/members", label: "Members", icon: "team" },
  { href: "/dashboard/audit-log", label: "Audit log", icon: "shield" },
];

function NavLinks({ onNavigate }: { onNavigate?: () => void }) {
  const pathname = usePathname();
  return (
    <ul className="space-y-0.5">
      {NAV.map((item) => {
        const active = item.href === "/dashboard" ? pathname === "/dashboard" : pathname.startsWith(item.href);
        return (
          <li key={item.href}>
            <Link
              href={item.href}
              onClick={onNavigate}
              aria-current={active ? "page" : undefined}
              className={cx(
                "flex items-center gap-3 rounded-lg px-3 py-2 text-sm font-medium transition focus-visible:outline-2 focus-visible:outline-indigo-500",
                active ? "bg-white/10 text-white" : "text-slate-300 hover:bg-white/5 hover:text-white",
              )}
            >
              <Icon name={item.icon} className="h-5 w-5 shrink-0 opacity-80" />
              {item.label}
            </Link>
          </li>
        );
      })}
    </ul>
  );
}

function Brand() {
  return (
    <Link href="/dashboard" className="flex items-center gap-2 text-white">
      <span className="grid h-8 w-8 place-items-center rounded-lg bg-gradient-to-br from-indigo-400 to-violet-600 text-sm font-bold shadow">R</span>
      <span className="text-sm font-semibold tracking-tight">Referral Tracking</span>
    </Link>
  );
}

export function DashboardShell({ children }: { children: ReactNode }) {
  const router = useRouter();
  const pathname = usePathname();
  const me = trpc.me.get.useQuery({}, { retry: false });
  const { env } = useEnvironment();
  const utils = trpc.useUtils();
  const [menuOpen, setMenuOpen] = useState(false);
  const [signingOut, setSigningOut] = useState(false);
  const err = contractError(me.error);

  // The phone drawer closes with Escape, like a dialog.
  useEffect(() => {
    if (!menuOpen) return;
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && setMenuOpen(false);
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [menuOpen]);

  useEffect(() => {
    if (err?.code === "UNAUTHENTICATED") router.replace(`/sign-in?next=${encodeURIComponent(pathname)}`);
  }, [err?.code, pathname, router]);

  if (me.isLoading || err?.code === "UNAUTHENTICATED") {
    return (
      <div className="grid min-h-screen place-items-center" role="status" aria-label="Loading the dashboard">
        <Spinner className="h-8 w-8 text-indigo-600" />
      </div>
    );
  }
  if (!me.data) {
    return (
      <div className="grid min-h-screen place-items-center px-4">
        <div role="alert" className="max-w-md rounded-xl bg-white p-6 text-center shadow ring-1 ring-slate-200">
          <p className="font-semibold text-slate-900">The dashboard is not available</p>
          <p className="mt-2 text-sm text-slate-600">{err?.message ?? "Something went wrong."}</p>
          <div className="mt-4 flex justify-center gap-2">
            <Button variant="secondary" onClick={() => me.refetch()}>
              Retry
            </Button>
            <Button
              variant="ghost"
              onClick={async () => {
                await signOut();
                router.replace("/sign-in");
              }}
            >
              Sign out
            </Button>
          </div>
        </div>
      </div>
    );
  }

  const doSignOut = async () => {
    setSigningOut(true);
    await signOut();
    void utils.invalidate();
    router.replace("/sign-in");
  };

  const userBox = (
    <div className="flex items-center gap-3 rounded-lg bg-white/5 p-3">
      <div className="grid h-9 w-9 shrink-0 place-items-center rounded-full bg-indigo-500/30 text-sm font-semibold text-indigo-100" aria-hidden="true">
        {(me.data.user.name || me.data.user.email).slice(0, 1).toUpperCase()}
      </div>
      <div className="min-w-0 flex-1">
        <p className="truncate text-sm font-medium text-white" data-testid="user-email">
          {me.data.user.email}
        </p>
        <p className="text-xs text-slate-400" data-testid="user-role">
          {ROLE_WORDS[me.data.role]}
        </p>
      </div>
      <button type="button" onClick={doSignOut} disabled={signingOut} className="rounded-md p-1.5 text-slate-300 hover:bg-white/10 hover:text-white focus-visible:outline-2 focus-visible:outline-indigo-400" aria-label="Sign out" title="Sign out">
        {signingOut ? <Spinner className="h-4 w-4" /> : <Icon name="logout" className="h-4 w-4" />}
      </button>
    </div>
  );

  return (
    <MeContext.Provider value={me.data}>
      <div className="min-h-screen lg:flex">
        {/* Sidebar (wide screens): the column stretches with the page, its content stays in view */}
        <aside className="hidden w-64 shrink-0 bg-slate-900 lg:block">
          <div className="sticky top-0 flex h-screen flex-col px-4 py-5">
          <Brand />
          <p className="mt-6 truncate px-3 text-xs font-semibold tracking-wider text-slate-400 uppercase" data-testid="business-name">
            {me.data.business.name}
          </p>
          <nav aria-label="Dashboard" className="mt-2 flex-1 overflow-y-auto">
            <NavLinks />
          </nav>
          {userBox}
          </div>
        </aside>

        <div className="min-w-0 flex-1">
        {/* Top bar (narrow screens) */}
        <div className="sticky top-0 z-30 flex items-center justify-between gap-3 bg-slate-900 px-4 py-3 lg:hidden">
          <Brand />
          <div className="flex items-center gap-2">
            <EnvironmentSwitch className="!bg-white/10 !ring-white/10 [&_button[aria-checked=false]]:text-slate-300" />
            <button type="button" onClick={() => setMenuOpen(true)} aria-label="Open navigation" aria-expanded={menuOpen} className="rounded-md p-2 text-slate-200 hover:bg-white/10 focus-visible:outline-2 focus-visible:outline-indigo-400">
              <Icon name="menu" />
            </button>
          </div>
        </div>
        {menuOpen && (
          <div className="fixed inset-0 z-40 lg:hidden" role="dialog" aria-modal="true" aria-label="Navigation">
            <div className="absolute inset-0 bg-slate-900/50" onClick={() => setMenuOpen(false)} />
            <div className="absolute inset-y-0 left-0 flex w-72 max-w-[85%] flex-col bg-slate-900 px-4 py-5">
              <div className="flex items-center justify-between">
                <Brand />
                <button type="button" onClick={() => setMenuOpen(false)} aria-label="Close navigation" className="rounded-md p-2 text-slate-300 hover:bg-white/10" autoFocus>
                  <Icon name="close" />
                </button>
              </div>
              <p className="mt-6 truncate px-3 text-xs font-semibold tracking-wider text-slate-400 uppercase">{me.data.business.name}</p>
              <nav aria-label="Dashboard" className="mt-2 flex-1 overflow-y-auto">
                <NavLinks onNavigate={() => setMenuOpen(false)} />
              </nav>
              {userBox}
            </div>
          </div>
        )}

        {/* Header strip with the environment switch (wide screens) */}
        <div className="sticky top-0 z-20 hidden items-center justify-between border-b border-slate-200 bg-white/80 px-8 py-3 backdrop-blur lg:flex">
          <p className="text-sm text-slate-500">
            Viewing <strong className={env === "TEST" ? "text-amber-700" : "text-indigo-700"}>{env === "TEST" ? "test data" : "live data"}</strong>
          </p>
          <EnvironmentSwitch />
        </div>
        {env === "TEST" && <div className="h-0.5 bg-amber-400" aria-hidden="true" />}
        <main className="mx-auto max-w-6xl px-4 py-6 sm:px-6 lg:px-8 lg:py-8">
          <DashboardPriceProvider>{children}</DashboardPriceProvider>
        </main>
        </div>
      </div>
    </MeContext.Provider>
  );
}
