"use client";
// Client-side providers: TanStack Query + tRPC (same-origin /api/trpc, the session cookie rides
// along), the TEST/LIVE choice and toasts.
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { httpBatchLink } from "@trpc/client";
import { useState, type ReactNode } from "react";
import { EnvironmentProvider } from "./environment";
import { ToastProvider } from "./toast";
import { trpc } from "./trpc";

/** Client errors (4xx) are answers, not hiccups: retrying them only delays the message. */
function shouldRetry(failureCount: number, error: unknown): boolean {
  const status = (error as { data?: { httpStatus?: number } })?.data?.httpStatus;
  if (status && status >= 400 && status < 500) return false;
  return failureCount < 2;
}

/** A session that ended mid-use (expired, signed out elsewhere) sends the user to sign in again. */
function onAuthError(error: unknown) {
  if ((error as { data?: { error?: { code?: string } } })?.data?.error?.code !== "UNAUTHENTICATED") return;
  const here = window.location.pathname;
  // A full page load on purpose: it drops every cached query of the session that ended.
  // eslint-disable-next-line @next/next/no-location-assign-relative-destination
  if (here.startsWith("/dashboard")) window.location.assign(`/sign-in?next=${encodeURIComponent(here)}`);
}

export function Providers({ children }: { children: ReactNode }) {
  const [queryClient] = useState(() => new QueryClient({ queryCache: new QueryCache({ onError: onAuthError }), mutationCache: new MutationCache({ onError: onAuthError }), defaultOptions: { queries: { retry: shouldRetry, staleTime: 0, refetchOnWindowFocus: true } } }));
  // staleTime 0: events, rewards and balances change behind the page's back (SDK traffic), so a
  // page always refetches when it mounts, showing the cached copy meanwhile.
  const [trpcClient] = useState(() => trpc.createClient({ links: [httpBatchLink({ url: "/api/trpc", maxItems: 25 })] }));
  return (
    <trpc.Provider client={trpcClient} queryClient={queryClient}>
      <QueryClientProvider client={queryClient}>
        <EnvironmentProvider>
          <ToastProvider>{children}</ToastProvider>
        </EnvironmentProvider>
      </QueryClientProvider>
    </trpc.Provider>
  );
}
