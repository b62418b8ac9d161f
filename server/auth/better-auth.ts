// The built-in session provider: Better Auth hosted by this app at /api/auth/*, on the same
// database. Business routes never call it directly: they resolve sessions over HTTP through
// `{AUTH_URL}/api/auth/get-session` (see session.ts), so an external provider can replace it.
import { betterAuth } from "better-auth";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { APIError, createAuthMiddleware } from "better-auth/api";
import { bearer } from "better-auth/plugins/bearer";
import { db } from "../db/client";
import { onUserSignedUp, pendingInvitationFor } from "../domain/members/service";
import { env } from "../shared/env";

function trustedOrigins(): string[] {
  const port = env.port;
  const list = [env.appUrl, `http://localhost:${port}`, `http://127.0.0.1:${port}`];
  for (const o of (process.env.TRUSTED_ORIGINS ?? "").split(",")) if (o.trim()) list.push(o.trim());
  return list;
}

export const auth = betterAuth({
  baseURL: env.appUrl,
  secret: env.authSecret,
  database: prismaAdapter(db, { provider: "postgresql" }),
  emailAndPassword: { enabled: true, minPasswordLength: 8, maxPasswordLength: 128, autoSignIn: true },
  trustedOrigins: trustedOrigins(),
  // Brute-force protection on sign-in/sign-up; AUTH_RATE_LIMIT=0 turns it off (test suites).
  rateLimit: { enabled: process.env.AUTH_RATE_LIMIT !== "0" },
  plugins: [bearer()],
  user: {
    additionalFields: {
      role: { type: "string", required: false, defaultValue: "BUSINESS", input: false },
    },
  },
  hooks: {
    before: createAuthMiddleware(async (ctx) => {
      if (ctx.path !== "/sign-up/email") return;
      const body = (ctx.body ?? {}) as { email?: unknown; businessName?: unknown };
      const businessName = typeof body.businessName === "string" ? body.businessName.trim() : "";
      const invited = typeof body.email === "string" && (await pendingInvitationFor(body.email));
      if (!invited && (businessName.length < 1 || businessName.length > 120)) {
        throw new APIError("BAD_REQUEST", { message: "businessName is required (1–120 characters)", code: "VALIDATION_ERROR" });
      }
    }),
  },
  databaseHooks: {
    user: {
      create: {
        after: async (user, ctx) => {
          const body = (ctx?.body ?? {}) as { businessName?: unknown };
          await onUserSignedUp({ id: user.id, email: user.email }, typeof body.businessName === "string" ? body.businessName.trim() : "");
        },
      },
    },
  },
});
