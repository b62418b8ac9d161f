// POST {webhookUrl} (/integrations/stripe/:token): Stripe's deliveries to a connection. In order:
// the token (unknown → 404, nothing else said), the connection's rate limit, the raw body under
// 256 KB, the signature (400 INVALID_SIGNATURE, nothing written), then the event, recorded once
// per Stripe event id (server/domain/integrations/stripe-receive.ts). Other methods: 405,
// whatever the token, so that no answer but 404 tells whether a token exists.
import { integrationOfToken, receiveStripeEvent, verifyStripeEvent } from "../domain/integrations/stripe-receive";
import { actionLimit } from "../shared/action-limit";
import { env } from "../shared/env";
import { AppError, errorResponse, notFound, toAppError } from "../shared/errors";
import { readCapped } from "../shared/http";

const MAX_BODY_BYTES = 256 * 1024;
const takeDelivery = actionLimit("stripe-webhook", () => env.stripeWebhookPerMinute, 60);
const tooLarge = () => new AppError("PAYLOAD_TOO_LARGE", "The request body exceeds 256 KB");

function tokenOf(req: Request): string {
  try {
    return decodeURIComponent(new URL(req.url).pathname.split("/").filter(Boolean).pop() ?? "");
  } catch {
    return "";
  }
}

async function receive(req: Request): Promise<Response> {
  const integration = await integrationOfToken(tokenOf(req));
  if (!integration) throw notFound("Webhook URL");
  await takeDelivery(integration.id, "deliveries to this Stripe connection");
  if (Number(req.headers.get("content-length") ?? 0) > MAX_BODY_BYTES) throw tooLarge();
  const raw = req.body ? await readCapped(req, MAX_BODY_BYTES) : "";
  if (raw === null) throw tooLarge();
  const event = verifyStripeEvent(integration, raw, req.headers.get("stripe-signature"));
  return Response.json(await receiveStripeEvent(integration, event));
}

export async function POST(req: Request): Promise<Response> {
  try {
    return await receive(req);
  } catch (e) {
    const err = toAppError(e);
    // The contract: a signature refused is a 400 (Stripe shows it as a failed delivery).
    if (err.code === "INVALID_SIGNATURE") return Response.json(err.toBody(), { status: 400 });
    return errorResponse(err);
  }
}

const notAllowed = () => Promise.resolve(errorResponse(new AppError("METHOD_NOT_ALLOWED", "Stripe delivers with POST", undefined, { Allow: "POST" })));
export const GET = notAllowed;
export const PUT = notAllowed;
export const PATCH = notAllowed;
export const DELETE = notAllowed;
