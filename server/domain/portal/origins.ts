// The origins a business lets use its portal from the browser (CORS of /portal/api/*) and frame
// its embed (frame-ancestors of /portal/embed): the allowedOrigins of its active API keys of that
// environment, and the origin of its website.
import { db } from "../../db/client";
import type { Environment } from "../../shared/environment";

export async function portalOrigins(businessId: string, environment: Environment): Promise<string[]> {
  const [keys, business] = await Promise.all([
    db.apiKey.findMany({ where: { businessId, environment, status: "ACTIVE" }, select: { allowedOrigins: true } }),
    db.business.findUnique({ where: { id: businessId }, select: { website: true } }),
  ]);
  const out = new Set(keys.flatMap((k) => k.allowedOrigins));
  if (business?.website) {
    try {
      out.add(new URL(business.website).origin.toLowerCase());
    } catch {
      // not a URL: no origin
    }
  }
  return [...out];
}
