// GET|HEAD /r/:code: a participant's referral link (public, no key). 302 to the environment's
// destination with the code and a click id; errors in the contract's shape. One address's clicks
// are recorded up to the publishable keys' rate: past it the visitor still lands, unrecorded, so
// that a flood from one address inflates no participant's clicks and no funnel.
import { followLink } from "../../domain/links/redirect";
import { requestClientIp } from "../../shared/client-ip";
import { errorResponse } from "../../shared/errors";
import { consumeRateLimit } from "../rate-limit";

type Ctx = { params: Promise<{ code: string }> };
const NO_STORE = { "Cache-Control": "no-store" };

async function answer(req: Request, ctx: Ctx, method: "GET" | "HEAD"): Promise<Response> {
  try {
    const { code } = await ctx.params;
    const ip = requestClientIp(req.headers);
    const record = method === "GET" && (await consumeRateLimit(`link:${ip ?? "unknown"}`, "PUBLISHABLE")).allowed;
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
