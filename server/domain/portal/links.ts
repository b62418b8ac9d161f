// The link a participant shares. For now: the business's landing URL (config `website`) with the
// code as `ref`; the one place to change when the service hosts short links of its own.
export function shareUrlFor(website: string | null, referralCode: string): string | null {
  if (!website) return null;
  try {
    const u = new URL(website);
    u.searchParams.set("ref", referralCode);
    return u.toString();
  } catch {
    return null;
  }
}
