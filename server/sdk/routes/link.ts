// GET|HEAD /r/:code: a participant's referral link (public, no key). 302 to the environment's
// destination with the code and a click id; errors in the contract's shape.
import { followLink } from "../../domain/links/redirect";
import { requestClientIp } from "../../shared/client-ip";
import { errorResponse } from "../../shared/errors";

type Ctx = { params: Promise<{ code: string }> };
const NO_STORE = { "Cache-Control": "no-store" };

async function answer(req: Request, ctx: Ctx, method: "GET" | "HEAD"): Promise<Response> {
  try {
    const { code } = await ctx.params;
    const { location } = await followLink({
      code,
      method,
      query: new URL(req.url).searchParams,
      userAgent: req.headers.get("user-agent"),
      ip: requestClientIp(req.headers),
      referer: req.headers.get("referer"),
    });
    return new Response(null, { status: 302, headers: { Location: location, ...NO_STORE, "X-Robots-Tag": "noindex" } });
  } catch (e) {
    return errorResponse(e, NO_STORE);
  }
}

export const GET = (req: Request, ctx: Ctx) => answer(req, ctx, "GET");
export const HEAD = (req: Request, ctx: Ctx) => answer(req, ctx, "HEAD");
