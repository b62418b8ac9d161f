// POST /sdk/participants/portal-sessions: a portal link and token for one participant (secret key,
// scope participants:write). DELETE /sdk/participants/portal-sessions/:token revokes one.
import { createPortalSessionInput } from "../../domain/portal/schemas";
import { createPortalSession, revokePortalSession } from "../../domain/portal/sessions";
import { notFound } from "../../shared/errors";
import { withSdkKey } from "../with-sdk-key";
import { objectBody } from "./body";

export const create = withSdkKey({
  POST: async (ctx) => ({ status: 201, body: await createPortalSession(ctx.scope, createPortalSessionInput.parse(objectBody(ctx))) }),
}, { scope: "participants:write" });

export const revoke = withSdkKey({
  DELETE: async (ctx) => {
    let token: string;
    try {
      token = decodeURIComponent(ctx.url.pathname.split("/").filter(Boolean).pop() ?? "");
    } catch {
      throw notFound("Portal session");
    }
    return { body: await revokePortalSession(ctx.scope, token) };
  },
}, { scope: "participants:write" });
