// The built-in session provider: Better Auth hosted by this app at /api/auth/*, on the same
// database. Business routes resolve sessions with its api.getSession in process (session.ts);
// an external provider at AUTH_URL can replace it.
import { betterAuth } from "better-auth";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { APIError, createAuthMiddleware } from "better-auth/api";
import { bearer } from "better-auth/plugins/bearer";
import { db } from "../db/client";
import { getInvitation, onUserSignedUp } from "../domain/members/service";
import { CLIENT_IP_HEADER } from "../shared/client-ip";
import { appOrigins } from "./csrf";
import { inspectJson } from "../shared/json-guard";
import { env } from "../shared/env";


export const auth = betterAuth({
  baseURL: env.appUrl,
  secret: env.authSecret,
  database: prismaAdapter(db, { provider: "postgresql" }),
  emailAndPassword: { enabled: true, minPasswordLength: 8, maxPasswordLength: 128, autoSignIn: true },
  trustedOrigins: appOrigins(),
  // Brute-force protection on sign-in/sign-up; AUTH_RATE_LIMIT=0 turns it off (test suites).
  rateLimit: { enabled: env.authRateLimit },
  // The client IP comes only from the header our HTTP server stamps from the socket peer and
  // TRUSTED_PROXIES (server/http-peer.ts); a client's own X-Forwarded-For is never read, so a
  // forged one cannot move a brute-force attempt into a fresh bucket.
  advanced: { ipAddress: { ipAddressHeaders: [CLIENT_IP_HEADER] } },
  plugins: [bearer()],
  user: {
    additionalFields: {
      role: { type: "string", required: false, defaultValue: "BUSINESS", input: false },
    },
  },
  hooks: {
    before: createAuthMiddleware(async (ctx) => {
      const problem = ctx.body === undefined ? null : inspectJson(ctx.body);
      if (problem) throw new APIError("BAD_REQUEST", { message: `${problem.path}: ${problem.message}`, code: "VALIDATION_ERROR" });
      if (ctx.path === "/sign-up/email" || ctx.path === "/update-user") {
        // The provider's own schema leaves these unbounded; they are shown on every members list.
        const { name, image } = (ctx.body ?? {}) as { name?: unknown; image?: unknown };
        if (typeof name === "string" && name.length > 100) throw new APIError("BAD_REQUEST", { message: "name: at most 100 characters", code: "VALIDATION_ERROR" });
        if (typeof image === "string" && image.length > 2048) throw new APIError("BAD_REQUEST", { message: "image: at most 2048 characters", code: "VALIDATION_ERROR" });
      }
      if (ctx.path !== "/sign-up/email") return;
      const body = (ctx.body ?? {}) as { email?: unknown; businessName?: unknown; inviteToken?: unknown };
      const businessName = typeof body.businessName === "string" ? body.businessName.trim() : "";
      // Only the invitation's token joins a business; an invited email without it gets its own.
      const inviteToken = typeof body.inviteToken === "string" ? body.inviteToken : null;
      const invited = inviteToken !== null;
      if (inviteToken !== null) {
        // Signing up through an invitation link: the link must be valid and for this email.
        const invitation = await getInvitation(inviteToken).catch(() => null);
        if (!invitation) throw new APIError("BAD_REQUEST", { message: "This invitation link is not valid: it was used, cancelled or has expired. Ask the owner for a new one.", code: "INVALID_INVITATION" });
        if (typeof body.email !== "string" || body.email.trim().toLowerCase() !== invitation.email) {
          throw new APIError("BAD_REQUEST", { message: `This invitation is for ${invitation.email}: sign up with that email.`, code: "INVITATION_EMAIL_MISMATCH" });
        }
      }
      if (!invited && (businessName.length < 1 || businessName.length > 120)) {
        throw new APIError("BAD_REQUEST", { message: "businessName is required (1–120 characters)", code: "VALIDATION_ERROR" });
      }
    }),
  },
  databaseHooks: {
    user: {
      create: {
        after: async (user, ctx) => {
          const body = (ctx?.body ?? {}) as { businessName?: unknown; inviteToken?: unknown };
          const inviteToken = typeof body.inviteToken === "string" ? body.inviteToken : null;
          await onUserSignedUp({ id: user.id, email: user.email }, typeof body.businessName === "string" ? body.businessName.trim() : "", inviteToken);
        },
      },
    },
  },
});
