// GET|HEAD /r/:code: a participant's referral link (public, no key). 302 to the environment's
// destination with the code and a click id; errors in the contract's shape. One client network's
// clicks (an IPv4 address, an IPv6 /64) are recorded up to the publishable keys' rate, and up to
// LINK_CLICKS_PER_NETWORK_HOUR per link and hour: past either the visitor still lands,
// unrecorded, so that a flood from one machine, whatever user agents it sends, inflates no
// participant's clicks and no funnel. Only a page
// navigation is a click: a browser says what a request is for (Sec-Fetch-Dest, Sec-Purpose), and
// an <img> or <iframe> on someone else's page, or a prefetch, must not record a click that then
// takes the attribution from the link the visitor did click (same visitor, later click).
import { followLink } from "../../domain/links/redirect";
import { clientNetwork, requestClientIp } from "../../shared/client-ip";
import { env } from "../../shared/env";
import { errorResponse } from "../../shared/errors";
import { consumeRateLimit, consumeWindow } from "../rate-limit";

type Ctx = { params: Promise<{ code: string }> };

/** The request is a top-level navigation (or from a client that does not say: curl, old browsers), not a prefetch. */
function navigation(h: Headers): boolean {
  const dest = h.get("sec-fetch-dest");
  if (dest !== null && dest !== "document") return false;
  return !/prefetch|prerender/i.test(`${h.get("sec-purpose") ?? ""} ${h.get("purpose") ?? ""} ${h.get("x-moz") ?? ""}`);
}
const NO_STORE = { "Cache-Control": "no-store" };

async function answer(req: Request, ctx: Ctx, method: "GET" | "HEAD"): Promise<Response> {
  try {
    const { code } = await ctx.params;
    const ip = requestClientIp(req.headers);
    // Per client network (an IPv6 /64 as one): its rate across links, and its clicks per link and hour.
    const net = clientNetwork(ip) ?? "unknown";
    // (The hourly count is per participant, charged only once the code is known: an unknown code
    // costs no counter.)
    const counted = method === "GET" && navigation(req.headers) && (await consumeRateLimit(`link:${net}`, "PUBLISHABLE")).allowed;
    const record = counted ? (participantId: string) => consumeWindow("link-hour", `${net} ${participantId}`, env.linkClicksPerNetworkHour, 3600) : false;
    const { location } = await followLink({
      code,
      method,
      record,
      query: new URL(req.url).searchParams,
      userAgent: req.headers.get("user-agent"),
      ip,
      referer: req.headers.get("referer"),
    });
    return new Response(null, { status: 302, headers: { Location: location, ...NO_STORE, "X-Robots-Tag": "noindex" } });
  } catch (e) {
    return errorResponse(e, NO_STORE);
  }
}

export const GET = (req: Request, ctx: Ctx) => answer(req, ctx, "GET");
export const HEAD = (req: Request, ctx: Ctx) => answer(req, ctx, "HEAD");
