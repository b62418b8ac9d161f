// The portal's email routes: POST /portal/api/sign-in (a referrer asks for a link by email: 202
// with the same body whether or not they are a participant), GET/POST /portal/api/notifications
// (the referrer's email preferences), and /email/unsubscribe (the link of every referrer email:
// GET a page with the choice, POST the RFC 8058 one-click unsubscribe, 200 and idempotent).
import { signInInput, portalNotificationsOutput, updatePortalNotificationsInput } from "../domain/email/schemas";
import { getParticipantNotifications, requestPortalSignIn, updateParticipantNotifications } from "../domain/email/service";
import { readUnsubscribeToken, unsubscribe } from "../domain/email/unsubscribe";
import { consumeRateLimit } from "../sdk/rate-limit";
import { readJson } from "../sdk/with-sdk-key";
import { requestClientIp } from "../shared/client-ip";
import { AppError, errorResponse } from "../shared/errors";
import { withPortalAuth } from "./with-portal-auth";

const SIGN_IN_ANSWER = { accepted: true as const, message: "If this email belongs to a referrer of this business, a link to their portal is on its way." };

export async function signIn(req: Request): Promise<Response> {
  const headers = { "Cache-Control": "no-store" };
  try {
    if (req.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST on this route", undefined, { Allow: "POST" });
    const limit = await consumeRateLimit(`portal-sign-in:${requestClientIp(req.headers) ?? "unknown"}`, "PUBLISHABLE");
    if (!limit.allowed) throw new AppError("RATE_LIMITED", "Too many sign-in requests; retry after the delay in Retry-After", undefined, limit.headers);
    const input = signInInput.parse(await readJson(req));
    await requestPortalSignIn(input);
    return Response.json(SIGN_IN_ANSWER, { status: 202, headers });
  } catch (e) {
    return errorResponse(e, headers);
  }
}

export const notifications = withPortalAuth({
  GET: async ({ auth }) => ({ body: portalNotificationsOutput.parse(await getParticipantNotifications(auth.participantId)) }),
  POST: async ({ auth, body }) => {
    if (auth.readOnly) throw new AppError("FORBIDDEN", "A staff preview cannot change the referrer's preferences");
    return { body: portalNotificationsOutput.parse(await updateParticipantNotifications(auth.participantId, updatePortalNotificationsInput.parse(body))) };
  },
});

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
function page(status: number, title: string, body: string): Response {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#111827}button{background:#1d4ed8;color:#fff;border:0;border-radius:6px;padding:.6rem 1rem;font-size:1rem;cursor:pointer}</style></head>
<body><main><h1>${esc(title)}</h1>${body}</main></body></html>`;
  return new Response(html, { status, headers: { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store", "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY" } });
}

const KIND_WORDS: Record<string, string> = {
  REWARD_EARNED: "rewards you earn",
  PAYOUT_SENT: "payouts sent to you",
  PAYOUT_FAILED: "payouts that fail",
  WALLET_MISSING: "reminders to add a wallet",
  REWARD_REVERSED: "reversed rewards",
};

/** GET: the choice; POST: unsubscribes (one-click from the mail client, or the page's button). */
export async function unsubscribeRoute(req: Request): Promise<Response> {
  const token = new URL(req.url).searchParams.get("token");
  const t = readUnsubscribeToken(token);
  if (req.method === "POST") {
    if (!t) return errorResponse(new AppError("VALIDATION_ERROR", "This unsubscribe link is not valid", [{ path: "token", message: "Not a valid unsubscribe token" }]));
    const done = await unsubscribe(t);
    if (!done) return errorResponse(new AppError("NOT_FOUND", "This unsubscribe link's referrer no longer exists"));
    const wantsHtml = (req.headers.get("accept") ?? "").includes("text/html");
    if (!wantsHtml) return Response.json({ unsubscribed: true, kind: t.kind }, { status: 200, headers: { "Cache-Control": "no-store" } });
    return page(200, "You are unsubscribed", `<p>You will no longer receive emails from ${esc(done.businessName)} about ${esc(KIND_WORDS[t.kind])}. You can turn them back on in your referral portal.</p>`);
  }
  if (!t) return page(400, "This link is not valid", "<p>The unsubscribe link is incomplete or was changed. Use the link at the bottom of the email.</p>");
  const action = `/email/unsubscribe?token=${encodeURIComponent(token!)}`;
  return page(
    200,
    "Unsubscribe",
    `<p>Stop receiving emails about ${esc(KIND_WORDS[t.kind])}?</p><form method="post" action="${esc(action)}"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>`,
  );
}
