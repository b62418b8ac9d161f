// GET /r/:code: the redirect of a referral link. Resolves the code (cached), builds the Location
// and buffers the click; the database is read only on a cache miss and never written here.
import { AppError } from "../../shared/errors";
import { newId } from "../../shared/ids";
import { enqueueClick } from "./clicks";
import { buildLocation, refererHost, utmFields } from "./destination";
import { fallbackDestination, resolveLink } from "./resolve";
import { hourOf, isBotUserAgent, visitorHash } from "./visitor";

export interface LinkRequest {
  code: string;
  /** HEAD requests are redirected but not recorded. */
  method: "GET" | "HEAD";
  /**
   * False: redirected but not recorded (the address is past its rate: routes/link.ts). A function:
   * asked, once the code is known to be a participant's, whether this click may be recorded.
   */
  record?: boolean | ((participantId: string) => Promise<boolean>);
  query: URLSearchParams;
  userAgent: string | null;
  ip: string | null;
  referer: string | null;
  now?: Date;
}

export interface LinkAnswer {
  location: string;
  clickId: string | null;
}

export async function followLink(req: LinkRequest): Promise<LinkAnswer> {
  const target = await resolveLink(req.code);
  if (!target) {
    // Unknown code: the visitor still lands somewhere, without attribution.
    const destination = await fallbackDestination();
    if (!destination) throw new AppError("NOT_FOUND", "No link destination is configured for this code");
    return { location: buildLocation({ destination, attribution: null, query: req.query }), clickId: null };
  }
  if (!target.destination) throw new AppError("NOT_FOUND", "This program has no link destination configured");
  const now = req.now ?? new Date();
  const record = req.method === "GET" && (typeof req.record === "function" ? await req.record(target.participantId) : req.record !== false);
  const clickId = record ? newId() : null;
  if (clickId) {
    enqueueClick({
      id: clickId,
      businessId: target.businessId,
      environment: target.environment,
      participantId: target.participantId,
      code: req.code.slice(0, 64),
      visitorHash: visitorHash(req.ip, req.userAgent, now),
      hour: hourOf(now),
      refererHost: refererHost(req.referer),
      ...utmFields(req.query),
      bot: isBotUserAgent(req.userAgent),
      at: now,
    });
  }
  const location = buildLocation({ destination: target.destination, attribution: { param: target.linkParam, code: target.referralCode, clickId }, query: req.query });
  return { location, clickId };
}
