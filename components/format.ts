// Display helpers. ETH amounts arrive as decimal strings and are shown as such (never via floats).
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

/** "1.500000000000000000" → "1.5 ETH"; keeps the string's precision, trims trailing zeros. */
export function formatEth(value: string | null | undefined, unit = true): string {
  if (value === null || value === undefined || value === "") return "—";
  let v = value.trim();
  if (v.includes(".")) v = v.replace(/0+$/, "").replace(/\.$/, "");
  return unit ? `${v} ETH` : v;
}

