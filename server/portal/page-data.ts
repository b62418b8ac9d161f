// What the /portal page (and the staff preview on the dashboard) renders: the participant's
// overview and the first page of each list, read through the same functions as the JSON API.
import { cookies, headers } from "next/headers";
import { displayPrice } from "../domain/commissions/pricing";
import { portalMe, portalPayouts, portalReferrals, portalRewards } from "../domain/portal/read";
import { portalListInput } from "../domain/portal/schemas";
import { listWithdrawals } from "../domain/payouts/withdrawals";
import { authenticatePortalToken, staffPreviewAuth } from "../domain/portal/sessions";
import type { PortalAuth } from "../shared/portal-auth";
import { resolveSession } from "../auth/session";
import { requireBusinessCaller } from "../trpc/init";
import { PORTAL_COOKIE } from "./auth";

async function portalPageData(auth: PortalAuth) {
  const first = portalListInput.parse({ limit: 50 });
  const [me, referrals, rewards, payouts, price, withdrawals] = await Promise.all([
    portalMe(auth),
    portalReferrals(auth, first),
    portalRewards(auth, first),
    portalPayouts(auth, first),
    displayPrice(auth.businessId, auth.environment),
    listWithdrawals(auth, { limit: 10 }),
  ]);
  return { me, referrals, rewards, payouts, price, withdrawals, readOnly: auth.readOnly };
}
export type PortalPageData = Awaited<ReturnType<typeof portalPageData>>;

/** The participant of the portal cookie, or null (no cookie, or an expired or revoked session). */
export async function portalPageForCookie(): Promise<PortalPageData | null> {
  const token = (await cookies()).get(PORTAL_COOKIE)?.value;
  const auth = await authenticatePortalToken(token);
  return auth ? portalPageData(auth) : null;
}

/** A staff member's read-only preview of one participant of their business. */
export async function portalPreviewForStaff(participantId: string): Promise<PortalPageData> {
  const h = await headers();
  const { businessId } = await requireBusinessCaller(() => resolveSession(h));
  return portalPageData(await staffPreviewAuth(businessId, participantId));
}
