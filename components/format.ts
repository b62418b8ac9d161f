// Display helpers for dates. Amounts are shown in the environment's asset by components/money.tsx
// (Eth, useEthWords, useAmountText: the one rule of server/shared/display-money.ts).
import { ethText } from "@/server/shared/display-money";

export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return "—";
  const d = new Date(iso);
  return d.toLocaleString(undefined, { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return "—";
  return new Date(iso).toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric" });
}

export function timeAgo(iso: string | null | undefined): string {
  if (!iso) return "never";
  const s = Math.round((Date.now() - new Date(iso).getTime()) / 1000);
  if (s < 45) return "just now";
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  if (s < 86400 * 30) return `${Math.round(s / 86400)} d ago`;
  return formatDate(iso);
}

/** An amount for a person: "0.28699999999999999" → "0.287 ETH" (the one display rule, server/shared/display-money.ts); pages pass their asset's symbol (useAmountText). */
export const formatEth = (value: string | null | undefined, symbol = "ETH"): string => ethText(value, symbol);
