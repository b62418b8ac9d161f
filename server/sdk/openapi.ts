// OpenAPI descriptions of the SDK routes (plain route handlers, not tRPC), merged into
// GET /api/openapi.json next to the generated business routes. The schemas are the ones the
// handlers validate with, so the description cannot drift from the behaviour.
import { z } from "zod";
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject } from "zod-openapi";
import { participantOutput, upsertParticipantInput } from "../domain/participants/schemas";
import { createPortalSessionInput, portalSessionOutput } from "../domain/portal/schemas";
import { reverseRewardsInput, reverseRewardsOutput } from "../domain/reversals/reversal-schemas";
import { applyQueuedOutput, applyReferralInput, applySyncOutput, referralListOutput } from "../domain/referrals/schemas";
import { trackInput, trackQueuedOutput, trackSyncOutput } from "../domain/tracking/schemas";
import { jobView } from "../domain/jobs/view";

const json = (schema: z.ZodType) => ({ content: { "application/json": { schema } } });
// The body of every error response (the contract's shape) is set by server/rest/openapi-errors.ts.
const err = (description: string) => ({ description });

const auth = "API key: `x-service-api-key`, `x-api-key` or `Authorization: Bearer rk_…` (first present wins).";
const common = {
  "400": err("VALIDATION_ERROR / INVALID_JSON"),
  "401": err("INVALID_API_KEY"),
  "403": err("ORIGIN_NOT_ALLOWED"),
  "429": err("RATE_LIMITED (Retry-After)"),
};
const postCommon = { ...common, "409": err("IDEMPOTENCY_CONFLICT"), "413": err("PAYLOAD_TOO_LARGE"), "415": err("UNSUPPORTED_MEDIA_TYPE") };
const idempotencyHeader = { in: "header" as const, name: "Idempotency-Key", required: false, schema: { type: "string" as const }, description: "Alternative to the body's idempotencyKey (24 h, per business + environment)." };

const batchResult = z.object({ index: z.number().int() }).catchall(z.unknown());

/** The API-key schemes of the SDK routes (merged into components.securitySchemes); any one of them authenticates. */
export const sdkSecuritySchemes = {
  serviceApiKey: { type: "apiKey", in: "header", name: "x-service-api-key", description: "API key (rk_test_… / rk_live_…); checked first" },
  apiKey: { type: "apiKey", in: "header", name: "x-api-key", description: "API key (rk_test_… / rk_live_…)" },
  apiKeyBearer: { type: "http", scheme: "bearer", description: "Authorization: Bearer rk_test_… / rk_live_…" },
} as const;
const sdkSecurity = Object.keys(sdkSecuritySchemes).map((name) => ({ [name]: [] }));

const op = (o: ZodOpenApiOperationObject): ZodOpenApiOperationObject => ({ tags: ["sdk"], security: sdkSecurity, ...o, description: `${o.description ?? ""}\n\n${auth}`.trim() });

export const sdkOpenApiPaths: ZodOpenApiPathsObject = {
  "/track": {
    post: op({
      operationId: "sdk-track",
      summary: "Track an event (processed now or queued as EVENT_PROCESS)",
      description: "eventProcessing AUTO (default): queued when metadata.referredUserEmail is present; SYNC / ASYNC force one path.",
      parameters: [idempotencyHeader],
      requestBody: json(trackInput),
      responses: { "200": { description: "Processed synchronously", ...json(trackSyncOutput) }, "202": { description: "Queued", ...json(trackQueuedOutput) }, "422": err("UNKNOWN_REFERRAL_CODE"), ...postCommon },
    }),
  },
  "/track/batch": {
    post: op({
      operationId: "sdk-track-batch",
      summary: "Track up to 100 events in one transaction",
      requestBody: json(z.object({ events: z.array(trackInput).min(1).max(100) })),
      responses: { "200": { description: "One result per event, in order", ...json(z.object({ results: z.array(batchResult), accepted: z.number().int(), failed: z.number().int() })) }, ...postCommon },
    }),
  },
  "/sdk/referrals/apply": {
    post: op({
      operationId: "sdk-referrals-apply",
      summary: "Apply a referral code (referredUserId → now; only referredUserEmail → queued SDK_REFERRAL_APPLY)",
      parameters: [idempotencyHeader],
      requestBody: json(applyReferralInput),
      responses: { "200": { description: "Processed synchronously", ...json(applySyncOutput) }, "202": { description: "Queued", ...json(applyQueuedOutput) }, "422": err("UNKNOWN_REFERRAL_CODE"), ...postCommon },
    }),
  },
  "/sdk/referrals": {
    get: op({
      operationId: "sdk-referrals-list",
      summary: "Referrals created through this API key, newest first",
      parameters: [
        { in: "query", name: "limit", required: false, schema: { type: "integer", default: 50 }, description: "Clamped into 1..200; not an integer → 400." },
        { in: "query", name: "cursor", required: false, schema: { type: "string" }, description: "nextCursor of the previous page." },
      ],
      responses: { "200": { description: "A page of referrals", ...json(referralListOutput) }, ...common },
    }),
  },
  "/sdk/participants": {
    post: op({
      operationId: "sdk-participants-upsert",
      summary: "Upsert a participant (by userId, else email) and get its referral code",
      requestBody: json(upsertParticipantInput),
      responses: { "200": { description: "The participant", ...json(participantOutput) }, "409": err("CONFLICT (handle taken)"), ...common },
    }),
  },
  "/sdk/participants/portal-sessions": {
    post: op({
      operationId: "sdk-portal-sessions-create",
      summary: "Create a portal session: a link and token that open one participant's portal (secret key, participants:write)",
      requestBody: json(createPortalSessionInput),
      responses: { "201": { description: "The session (the token is shown once)", ...json(portalSessionOutput) }, "404": err("NOT_FOUND (no such participant)"), ...common, "403": err("INSUFFICIENT_SCOPE (publishable key) / ORIGIN_NOT_ALLOWED") },
    }),
  },
  "/sdk/participants/portal-sessions/{token}": {
    delete: op({
      operationId: "sdk-portal-sessions-revoke",
      summary: "Revoke a portal session (idempotent)",
      parameters: [{ in: "path", name: "token", required: true, schema: { type: "string" } }],
      responses: {
        "200": { description: "Revoked", ...json(z.object({ participantId: z.string(), expiresAt: z.string(), revokedAt: z.string(), revoked: z.literal(true) })) },
        "404": err("NOT_FOUND"),
        ...common,
      },
    }),
  },
  "/sdk/rewards/reverse": {
    post: op({
      operationId: "sdk-rewards-reverse",
      summary:
        "Reverse a referred user's rewards, or an event's (a refund, partial with amount: that share of each reward, rounded down to the wei): unpaid ones return to the pool, paid-out ones are clawed back from later payouts",
      parameters: [idempotencyHeader],
      requestBody: json(reverseRewardsInput),
      responses: {
        "200": { description: "The reversals made by this call", ...json(reverseRewardsOutput) },
        "404": err("NOT_FOUND (no such referred user or event)"),
        "409": err("CONFLICT (the event is not processed yet) / IDEMPOTENCY_CONFLICT"),
        "422": err("UNPROCESSABLE (amount is more than what remains unrefunded of the event, the event has no amount, or it is held for review)"),
        ...common,
      },
    }),
  },
  "/sdk/jobs/{jobId}": {
    get: op({
      operationId: "sdk-jobs-get",
      summary: "Status of a queued job",
      parameters: [{ in: "path", name: "jobId", required: true, schema: { type: "string" } }],
      responses: { "200": { description: "The job", ...json(jobView) }, "404": err("NOT_FOUND"), ...common },
    }),
  },
};
