// Requests drawn from an OpenAPI document, for the conformance walk (tests/http/openapi-conformance):
// fast-check arbitraries that follow an operation's JSON schemas (valid requests) or break one
// part of them (invalid requests), sampled from a seed so that a run can be replayed. What
// Schemathesis does, in the repository's own stack (it is a Python tool; PyPI is out of reach).
import fc from "fast-check";
import { hostileBody, hostileString } from "./fuzz";

export type Schema = Record<string, any>;
interface Parameter {
  in: "path" | "query" | "header" | "cookie";
  name: string;
  required?: boolean;
  schema?: Schema;
}
export interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
  body?: Schema;
  responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}
export interface Sample {
  kind: "valid" | "invalid";
  path: Record<string, string>;
  query: Record<string, string>;
  /** The JSON value to send, or a raw text when `text` is set (a wrong type, broken JSON). */
  body?: unknown;
  text?: string;
  contentType?: string;
}

/** Every operation of the document, with its parameters and JSON request schema. */
export function operationsOf(doc: { paths: Record<string, Record<string, any>> }): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      parameters: (op.parameters ?? []) as Parameter[],
      body: op.requestBody?.content?.["application/json"]?.schema as Schema | undefined,
      responses: op.responses ?? {},
    })),
  );
}

const ASCII = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 12 });

/** Values the schema accepts (bounded: short strings and arrays, a few keys). */
function valueOf(s: Schema): fc.Arbitrary<unknown> {
  if (s.const !== undefined) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  if (Array.isArray(s.anyOf)) return fc.oneof(...(s.anyOf as Schema[]).map(valueOf));
  if (Array.isArray(s.oneOf)) return fc.oneof(...(s.oneOf as Schema[]).map(valueOf));
  const type = Array.isArray(s.type) ? (s.type as string[])[0] : (s.type as string | undefined);
  switch (type) {
    case "string":
      return stringOf(s);
    case "integer":
      return fc.integer({ min: Math.max(s.minimum ?? -1_000_000, -2_147_483_648), max: Math.min(s.maximum ?? 1_000_000, 2_147_483_647) });
    case "number":
      return fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true });
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array":
      return fc.array(valueOf(s.items ?? {}), { minLength: s.minItems ?? 0, maxLength: Math.max(s.minItems ?? 0, Math.min(s.maxItems ?? 3, 3)) });
    case "object":
      return objectOf(s);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function stringOf(s: Schema): fc.Arbitrary<string> {
  const min = s.minLength ?? 0;
  const max = s.maxLength ?? Number.POSITIVE_INFINITY;
  const fits = (v: string) => v.length >= min && v.length <= max;
  if (s.format === "email") return fc.emailAddress().filter(fits);
  if (s.format === "uri") return fc.webUrl().filter(fits);
  if (s.pattern) return fc.stringMatching(new RegExp(s.pattern as string)).filter(fits);
  return fc.string({ minLength: min, maxLength: Math.min(max, Math.max(min, 40)) }); // short: enough to reach every branch
}

function objectOf(s: Schema): fc.Arbitrary<Record<string, unknown>> {
  const props = (s.properties ?? {}) as Record<string, Schema>;
  const known = fc.record(Object.fromEntries(Object.entries(props).map(([k, v]) => [k, valueOf(v)])), { requiredKeys: (s.required ?? []) as string[] });
  const extra = s.additionalProperties;
  if (!extra || typeof extra !== "object") return known;
  const key = s.propertyNames ? (valueOf({ type: "string", ...s.propertyNames }) as fc.Arbitrary<string>) : ASCII;
  return fc.tuple(known, fc.dictionary(key, valueOf(extra as Schema), { maxKeys: 2 })).map(([a, b]) => ({ ...b, ...a }));
}

/** A value of another JSON type than the schema's (a string for a number, an object for a list, …). */
const wrongType = fc.constantFrom<unknown>(12345, -1, 1.5, "text", "", true, null, [], {}, [1, "a"], { a: 1 });

/** The text a query string carries for a value. */
const queryText = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));

/**
 * One request for the operation: valid (every part from its schema; path ids from `ids` when it
 * holds real ones), or invalid (one part broken: a body field of the wrong type, an unknown or a
 * missing field, hostile JSON or text, another content type, a hostile query value or path id).
 */
export function requestOf(op: Operation, ids: (name: string) => string[]): fc.Arbitrary<Sample> {
  const pathParams = op.parameters.filter((p) => p.in === "path");
  const queryParams = op.parameters.filter((p) => p.in === "query");
  const path = fc.record(
    Object.fromEntries(pathParams.map((p) => [p.name, ids(p.name).length ? fc.oneof(fc.constantFrom(...ids(p.name)), stringOf(p.schema ?? {})) : stringOf(p.schema ?? { type: "string" })])),
  ) as fc.Arbitrary<Record<string, string>>;
  const query = fc.record(Object.fromEntries(queryParams.map((p) => [p.name, valueOf(p.schema ?? {}).map(queryText)])), {
    requiredKeys: queryParams.filter((p) => p.required).map((p) => p.name),
  }) as fc.Arbitrary<Record<string, string>>;
  const body = op.body ? valueOf(op.body) : fc.constant(undefined);
  const valid = fc.record({ path, query, body }).map((r): Sample => ({ kind: "valid", ...r }));
  const fields = Object.keys((op.body?.properties ?? {}) as object);
  const breaks: Array<fc.Arbitrary<(s: Sample) => Sample>> = [
    fc.tuple(hostileString, hostileString).map(([name, v]) => (s: Sample) => ({ ...s, query: { ...s.query, [queryParams.length ? queryParams[name.length % queryParams.length].name : name || "x"]: v } })),
  ];
  if (pathParams.length) breaks.push(hostileString.map((v) => (s: Sample) => ({ ...s, path: { ...s.path, [pathParams[v.length % pathParams.length].name]: v } })));
  if (op.body) {
    breaks.push(
      fc.tuple(fc.constantFrom(...(fields.length ? fields : ["x"])), wrongType).map(([f, v]) => (s: Sample) => ({ ...s, body: { ...(s.body as object), [f]: v } })),
      fc.constantFrom(...(fields.length ? fields : ["x"])).map((f) => (s: Sample) => ({ ...s, body: Object.fromEntries(Object.entries(s.body as object).filter(([k]) => k !== f)) })),
      ASCII.map((f) => (s: Sample) => ({ ...s, body: { ...(s.body as object), [`unknown_${f}`]: 1 } })),
      hostileBody(fields.length ? fields : ["x"]).map((b) => (s: Sample) => ({ ...s, body: b })),
      fc.constantFrom("{", "[1,", "not json", "").map((t) => (s: Sample) => ({ ...s, body: undefined, text: t })),
      fc.constantFrom("text/plain", "application/x-www-form-urlencoded").map((t) => (s: Sample) => ({ ...s, contentType: t, text: "a=1" })),
    );
  }
  const invalid = fc.tuple(valid, fc.oneof(...breaks)).map(([s, brk]): Sample => ({ ...brk(s), kind: "invalid" }));
  return fc.oneof(valid, invalid);
}
