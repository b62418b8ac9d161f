// The link a participant shares: the service's own referral link `{APP_URL}/r/CODE` when the
// environment has a link destination (its clicks are counted, server/domain/links/), else the
// business's landing URL (config `website`) with the code as `ref`; null with neither.
import { env } from "../../shared/env";

export function shareUrlFor(opts: { linkDestinationUrl: string | null | undefined; website: string | null }, referralCode: string): string | null {
  if (opts.linkDestinationUrl) return `${env.appUrl}/r/${encodeURIComponent(referralCode)}`;
  if (!opts.website) return null;
  try {
    const u = new URL(opts.website);
    u.searchParams.set("ref", referralCode);
    return u.toString();
  } catch {
    return null;
  }
}
