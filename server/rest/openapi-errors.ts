// The error responses of GET /api/openapi.json: every 4xx/5xx of every operation has the
// contract's body { error: { code, message, details? } } (one schema per status, whose `code`
// lists the codes ERROR_CODES gives that status), and every operation lists each status the
// service can answer it with, so that a client generated from the document reads every error.
import { ERROR_CODES, type ErrorCode } from "../shared/errors";

type Json = Record<string, unknown>;
interface Operation {
  requestBody?: unknown;
  responses?: Record<string, Json>;
}

const codesOf = (status: number) => (Object.keys(ERROR_CODES) as ErrorCode[]).filter((c) => ERROR_CODES[c].status === status);
const schemaName = (status: number) => `Error${status}`;

/** The error body for one status, as a JSON schema (components.schemas.Error<status>). */
const errorSchema = (status: number) => ({
  type: "object",
  description: `The contract's error body; code is one of ${codesOf(status).join(", ")}`,
  required: ["error"],
  additionalProperties: false,
  properties: {
    error: {
      type: "object",
      required: ["code", "message"],
      additionalProperties: false,
      properties: { code: { type: "string", enum: codesOf(status) }, message: { type: "string" }, details: {} },
    },
  },
});

// What any operation can meet before or around its own logic: validation (400), no or a bad
// credential (401), role, owner, origin or scope (403), an unknown or foreign object (404), a
// conflict or a business rule (409, 422), a rate limit (429), an outage of the database or the
// chain (503), and 500 INTERNAL (no stack, no SQL). A body adds 413 and 415.
const ANY_OPERATION = [400, 401, 403, 404, 409, 422, 429, 500, 503];
const WITH_BODY = [413, 415];
/** Every status code that an error response of the document uses. */
const ERROR_STATUSES = [...new Set([...ANY_OPERATION, ...WITH_BODY, ...Object.values(ERROR_CODES).map((c) => c.status)])].sort((a, b) => a - b);

/**
 * Rewrites the document's error responses in place: the contract's shape for every one, the
 * statuses of ANY_OPERATION (and WITH_BODY for operations with a body) added where missing.
 * `keepDescriptions`: paths whose operations describe their errors by hand (the SDK's).
 */
export function documentErrors(doc: { paths?: Record<string, Record<string, Operation>>; components?: Json }, keepDescriptions: ReadonlySet<string>) {
  const components = (doc.components ??= {}) as { schemas?: Record<string, unknown> };
  const schemas = (components.schemas ??= {});
  // The adapter's own error schemas ({ message, code, issues }) describe no answer of ours.
  for (const name of Object.keys(schemas)) if (name.startsWith("error.")) delete schemas[name];
  for (const status of ERROR_STATUSES) schemas[schemaName(status)] = errorSchema(status);
  for (const [path, methods] of Object.entries(doc.paths ?? {})) {
    for (const op of Object.values(methods)) {
      const responses = (op.responses ??= {});
      const statuses = new Set([...Object.keys(responses).map(Number).filter((s) => s >= 400), ...ANY_OPERATION, ...(op.requestBody ? WITH_BODY : [])]);
      for (const status of [...statuses].sort((a, b) => a - b)) {
        const own = keepDescriptions.has(path) ? (responses[status]?.description as string | undefined) : undefined;
        responses[status] = {
          description: own ?? codesOf(status).join(" / "),
          content: { "application/json": { schema: { $ref: `#/components/schemas/${schemaName(status)}` } } },
        };
      }
    }
  }
}
