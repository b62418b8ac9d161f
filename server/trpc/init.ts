// Builds tRPC: context, the error formatter that carries the contract's error body, and the
// procedures every router composes: public, business (session + role BUSINESS + membership),
// admin (business + owner or ADMIN: what changes what the pool pays) and owner.
import { initTRPC, TRPCError } from "@trpc/server";
import type { OpenApiMeta } from "trpc-to-openapi";
import { assertSameOrigin } from "../auth/csrf";
import { resolveSession, type SessionUser } from "../auth/session";
import { assertCanChangeMoney, findMembership } from "../domain/members/service";
import { AppError, ERROR_CODES, toAppError, type ErrorCode } from "../shared/errors";
import { assertCleanJson } from "../shared/json-guard";
import { audited } from "./audit";

export interface Context {
  headers: Headers;
  session: () => Promise<SessionUser | null>;
}

export function createContext(req: Request): Context {
  let cached: Promise<SessionUser | null> | undefined;
  return { headers: req.headers, session: () => (cached ??= resolveSession(req.headers)) };
}

const TRPC_TO_APP: Partial<Record<TRPCError["code"], ErrorCode>> = {
  BAD_REQUEST: "VALIDATION_ERROR",
  PARSE_ERROR: "INVALID_JSON",
  UNAUTHORIZED: "UNAUTHENTICATED",
  FORBIDDEN: "FORBIDDEN",
  NOT_FOUND: "NOT_FOUND",
  METHOD_NOT_SUPPORTED: "METHOD_NOT_ALLOWED",
  PAYLOAD_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  UNSUPPORTED_MEDIA_TYPE: "UNSUPPORTED_MEDIA_TYPE",
  TOO_MANY_REQUESTS: "RATE_LIMITED",
  CONFLICT: "CONFLICT",
};

/** Whatever a procedure threw → the one AppError it stands for. */
export function appErrorOf(error: TRPCError): AppError {
  const cause = error.cause;
  if (cause instanceof AppError || (cause && (cause as { name?: string }).name === "ZodError")) return toAppError(cause);
  if (cause && !(cause instanceof TRPCError) && error.code === "INTERNAL_SERVER_ERROR") return toAppError(cause);
  const code = TRPC_TO_APP[error.code];
  if (code) return new AppError(code, code === "VALIDATION_ERROR" && error.message === "Input validation failed" ? "Request validation failed" : error.message);
  return toAppError(error);
}

const t = initTRPC
  .context<Context>()
  .meta<OpenApiMeta>()
  .create({
    errorFormatter({ shape, error }) {
      const app = appErrorOf(error);
      return {
        ...shape,
        message: app.message,
        data: { code: shape.data.code, httpStatus: app.status, error: app.toBody().error },
      };
    },
  });

export const router = t.router;

/** Re-throws AppErrors as TRPCErrors with the matching tRPC code (so tRPC's HTTP status agrees). */
const errorMapper = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok) {
    const app = appErrorOf(result.error);
    throw new TRPCError({ code: ERROR_CODES[app.code].trpc, message: app.message, cause: app });
  }
  return result;
});

/** Text, depth and prototype-key rules on every input (tRPC and REST), before any schema. */
const cleanInput = t.middleware(async ({ ctx, type, getRawInput, next }) => {
  // CSRF first: a forged cross-site mutation learns nothing about its input's validity.
  if (type === "mutation") assertSameOrigin("POST", ctx.headers);
  assertCleanJson(await getRawInput());
  return next();
});

export const publicProcedure = t.procedure.use(errorMapper).use(cleanInput);

/** The caller of a business operation: a session with role BUSINESS and an active membership. */
export async function requireBusinessCaller(session: () => Promise<SessionUser | null>) {
  const user = await session();
  if (!user) throw new AppError("UNAUTHENTICATED", "Sign in: a valid session is required");
  if (user.role !== "BUSINESS") throw new AppError("FORBIDDEN", "The BUSINESS role is required");
  const membership = user.membership !== undefined ? user.membership : await findMembership(user.id);
  if (!membership) throw new AppError("FORBIDDEN", "This account does not belong to a business");
  return { user, membership, businessId: membership.businessId };
}

/** A signed-in dashboard user, with or without a business (accepting an invitation). */
export const signedInProcedure = publicProcedure.use(async ({ ctx, next }) => {
  const user = await ctx.session();
  if (!user) throw new AppError("UNAUTHENTICATED", "Sign in: a valid session is required");
  if (user.role !== "BUSINESS") throw new AppError("FORBIDDEN", "The BUSINESS role is required");
  return next({ ctx: { user } });
});

export const businessProcedure = publicProcedure.use(async ({ ctx, type, path, getRawInput, next }) => {
  const caller = await requireBusinessCaller(ctx.session);
  if (type !== "mutation") return next({ ctx: caller });
  // Every change through /business or the dashboard goes to the staff audit log (audit.ts).
  return audited({ businessId: caller.businessId, user: caller.user, headers: ctx.headers }, path, await getRawInput(), () => next({ ctx: caller }));
});

/** Changes what the pool pays (amounts, tiers, referral rules, recorded events): the owner or an admin. */
export const adminProcedure = businessProcedure.use(async ({ ctx, next }) => {
  assertCanChangeMoney(ctx.membership.role);
  return next();
});

export const ownerProcedure = businessProcedure.use(async ({ ctx, next }) => {
  if ((ctx.membership).role !== "OWNER") throw new AppError("NOT_OWNER", "Only the owner of the business can do this");
  return next();
});
