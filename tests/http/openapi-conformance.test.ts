// The OpenAPI document says what the API answers: every operation of GET /api/openapi.json is
// walked over HTTP with an owner's bearer session (business routes) and a secret API key (SDK
// routes), with requests drawn from its own schemas, valid and broken (tests/support/schema-fuzz),
// and every answer is checked: no server error (a LIVE route may meet the outage it documents,
// 503 CHAIN_UNAVAILABLE: no LIVE chain is configured here), a status the operation documents, and
// a body its schema for that status accepts (Ajv). The Schemathesis run of the review, in the
// repository's stack. FUZZ_SEED replays a run; FUZZ_SCALE=3 or more digs deeper.
import http from "node:http";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { operationsOf, requestOf, type Operation, type Sample, type Schema } from "../support/schema-fuzz";
import { baseUrl, createKey, request, sdk, signUp, type Owner } from "../support/http";

const SEED = Number(process.env.FUZZ_SEED ?? 20261128);
/** Requests per operation (about 90 operations). */
const PER_OP = Math.max(3, Math.round(4 * Number(process.env.FUZZ_SCALE ?? "1")));

let doc: { paths: Record<string, Record<string, any>>; components: Record<string, unknown> };
let owner: Owner;
let secret = "";
/** Ids seen in answers, by field name (participantId, eventId, …): path ids that exist. */
const ids = new Map<string, Set<string>>();
/** Ids the walk must not use: the key it calls the SDK with, so that no case revokes or rotates it. */
const spared = new Set<string>();

function collectIds(v: unknown, depth = 0) {
  if (depth > 4 || !v || typeof v !== "object") return;
  for (const [k, x] of Object.entries(v)) {
    if (/Id$/.test(k) && typeof x === "string" && !spared.has(x) && k !== "memberId") {
      if (!ids.has(k)) ids.set(k, new Set());
      if (ids.get(k)!.size < 20) ids.get(k)!.add(x);
    } else collectIds(x, depth + 1);
  }
}

beforeAll(async () => {
  doc = (await request(baseUrl(), "GET", "/api/openapi.json")).body;
  owner = await signUp({ businessName: "Conformance Co" });
  const key = await createKey(owner, "TEST");
  secret = key.secret;
  spared.add(key.apiKeyId);
  // A few real objects, so that sub-resource routes are reached with ids that exist.
  await createKey(owner, "TEST", { name: "spare" });
  collectIds((await owner.call("GET", "/business/api-keys")).body);
  const p = await sdk(secret, "POST", "/sdk/participants", { userId: "conf-ref", email: "conf-ref@example.com" });
  collectIds(p.body);
  collectIds((await sdk(secret, "POST", "/track", { eventName: "signup", referrer: p.body.referralCode, metadata: { referredUserId: "conf-new" } })).body);
  collectIds((await owner.call("POST", "/business/config/tiers", { name: "Gold", minReferrals: 3, referralRewardEth: "0.01" })).body);
  collectIds((await owner.call("GET", "/business/events?environment=TEST")).body);
}, 60_000);

// ---- answers

const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
addFormats(ajv);
const validators = new Map<string, ValidateFunction>();
/** A validator for a schema of the document (its $refs point into the document's components), compiled once per distinct schema. */
function validatorOf(schema: Schema): ValidateFunction {
  const key = JSON.stringify(schema);
  let v = validators.get(key);
  if (!v) validators.set(key, (v = ajv.compile({ ...schema, components: doc.components })));
  return v;
}

interface Answer {
  status: number;
  contentType: string;
  text: string;
}

/** Sends a request with node:http (fetch refuses TRACE and sets its own content length rules). */
function send(method: string, path: string, headers: Record<string, string>, text?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${baseUrl()}${path}`, { method, headers: { ...headers, ...(text !== undefined ? { "content-length": String(Buffer.byteLength(text)) } : {}) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers["content-type"] ?? ""), text: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("error", reject);
    req.end(text);
  });
}

const enc = (s: string) => {
  try {
    return encodeURIComponent(s);
  } catch {
    return "%ED%A0%80"; // a lone surrogate: what a raw client could still send
  }
};

function urlOf(op: Operation, s: Sample) {
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => enc(s.path[name] ?? "") || "x");
  const query = Object.entries(s.query)
    .map(([k, v]) => `${enc(k)}=${enc(v)}`)
    .join("&");
  return query ? `${path}?${query}` : path;
}

function credentials(op: Operation): Record<string, string> {
  return op.path.startsWith("/business/") ? { authorization: `Bearer ${owner.token}` } : { "x-api-key": secret };
}

/** What is wrong with an answer, by the document ("" when nothing). */
function problemOf(op: Operation, a: Answer): string {
  let body: unknown;
  try {
    body = a.text ? JSON.parse(a.text) : undefined;
  } catch {
    body = undefined;
  }
  const code = (body as { error?: { code?: string } } | undefined)?.error?.code;
  if (a.status >= 500 && !(a.status === 503 && code === "CHAIN_UNAVAILABLE")) return `server error ${a.status} ${a.text.slice(0, 200)}`;
  const documented = op.responses[String(a.status)] ?? op.responses.default;
  if (!documented) return `status ${a.status} is not documented (${a.text.slice(0, 120)})`;
  const schema = documented.content?.["application/json"]?.schema;
  if (!schema) return "";
  if (!a.contentType.startsWith("application/json") || body === undefined) return `status ${a.status}: not a JSON body (${a.contentType}: ${a.text.slice(0, 80)})`;
  const validate = validatorOf(schema);
  return validate(body) ? "" : `status ${a.status}: body does not match its schema: ${ajv.errorsText(validate.errors)} — ${a.text.slice(0, 200)}`;
}

async function call(op: Operation, s: Sample, auth = true): Promise<Answer> {
  const hasBody = s.text !== undefined || s.body !== undefined;
  const headers: Record<string, string> = { ...(auth ? credentials(op) : {}), ...(hasBody ? { "content-type": s.contentType ?? "application/json" } : {}) };
  return send(op.method, urlOf(op, s), headers, s.text ?? (s.body !== undefined ? JSON.stringify(s.body) : undefined));
}

describe("the OpenAPI document says what the API answers", () => {
  it("every error response has the contract's shape; the adapter's { message, code, issues } is gone", () => {
    const ops = operationsOf(doc);
    expect(ops.length).toBeGreaterThan(80);
    for (const op of ops) {
      for (const [status, r] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        const schema = r.content?.["application/json"]?.schema;
        expect(schema, `${op.method} ${op.path} ${status}`).toBeDefined();
        const v = validatorOf(schema!);
        const code = (v.schema as { components: { schemas: Record<string, Schema> } }).components.schemas[`Error${status}`]?.properties?.error?.properties?.code?.enum?.[0];
        expect(v({ error: { code, message: "m" } }), `${op.method} ${op.path} ${status}`).toBe(true);
        expect(v({ message: "m", code: "BAD_REQUEST", issues: [] }), `${op.method} ${op.path} ${status}`).toBe(false);
      }
      // What every operation can meet: a bad input, no session or key, a refusal, an unknown object, an outage.
      for (const status of ["400", "401", "403", "404", "422", "429", "500", "503"]) expect(op.responses[status], `${op.method} ${op.path} ${status}`).toBeDefined();
    }
  });

  it("walks every operation: no server error, every status documented, every body as documented", async () => {
    const problems: string[] = [];
    const ops = operationsOf(doc);
    for (const [i, op] of ops.entries()) {
      const samples = fc.sample(
        requestOf(op, (name) => [...(ids.get(name) ?? [])]),
        { seed: SEED + i, numRuns: PER_OP },
      );
      for (const s of samples) {
        const a = await call(op, s);
        if (a.status < 300 && a.text) collectIds(JSON.parse(a.text));
        const problem = problemOf(op, a);
        if (problem) problems.push(`${op.method} ${urlOf(op, s).slice(0, 160)} [${s.kind}${s.text !== undefined ? ` text ${JSON.stringify(s.text)}` : ""}]: ${problem}`);
      }
      // Without credentials: 401 before anything else (checked on a valid request: a broken one may be refused first).
      const valid = samples.find((s) => s.kind === "valid");
      if (valid) {
        const anonymous = await call(op, valid, false);
        const problem = problemOf(op, anonymous);
        if (problem || anonymous.status !== 401) problems.push(`${op.method} ${urlOf(op, valid).slice(0, 160)} without credentials: ${anonymous.status} ${problem || anonymous.text.slice(0, 120)}`);
      }
    }
    expect(problems, `seed ${SEED}`).toEqual([]);
  }, 240_000);

  it("parameters the document allows are accepted: a list limit of any integer, dates and timestamps", async () => {
    for (const limit of ["1", "200", "9007199254740991", "-9007199254740991", "0"]) {
      const r = await owner.call("GET", `/business/events?environment=TEST&limit=${limit}`);
      expect(r.status, limit).toBe(200);
    }
    for (const q of ["from=2026-11-27", "from=2026-11-27T10:00:00Z&to=2026-11-28T10:00:00.123Z", "from=2026-11-27T10:00:00%2B01:00"]) {
      expect((await owner.call("GET", `/business/referrals?environment=TEST&${q}`)).status, q).toBe(200);
    }
    const r = await owner.call("GET", "/business/events?limit=1e1");
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("VALIDATION_ERROR");
  });

  it("the simulation's from: \"\" is a validation error on that field, not an internal message", async () => {
    const rule = { eventName: "purchase", recipient: "REFERRER", type: "FIXED", amount: "1", currency: "ETH" };
    const r = await owner.call("POST", "/business/commission-rules/simulate", { environment: "TEST", rule, from: "", to: "2026-01-01" });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("VALIDATION_ERROR");
    expect(JSON.stringify(r.body)).not.toMatch(/is not a function/);
    expect(r.body.error.details.some((d: { path: string }) => d.path === "from")).toBe(true);
  });
});

// Next builds a WHATWG Request for every request, which refuses TRACE (a 500); scripts/serve.mjs
// answers methods no route takes before Next sees them, and gives Next's bare 405 the error shape.
describe("methods no route answers", () => {
  it("TRACE and other unknown methods are 405 in the contract's shape, never 500", async () => {
    const paths = ["/business/config", "/track", "/sdk/referrals", "/api/openapi.json", "/dashboard", "/"];
    for (const method of ["TRACE", "PROPFIND", "MKCOL", "PURGE", "LINK"]) {
      for (const path of paths) {
        const a = await send(method, path, { authorization: `Bearer ${owner.token}` });
        expect(a.status, `${method} ${path}`).toBe(405);
        expect(JSON.parse(a.text).error.code, `${method} ${path}`).toBe("METHOD_NOT_ALLOWED");
      }
    }
  });

  it("a path whose percent-encoding is not UTF-8 is 400 in the contract's shape, never 500", async () => {
    for (const path of ["/business/webhooks/%ED%A0%80", "/sdk/jobs/%C0", "/r/%FF", "/dashboard/%ED%A0%80"]) {
      const a = await send("GET", path, { authorization: `Bearer ${owner.token}` });
      expect(a.status, path).toBe(400);
      expect(JSON.parse(a.text).error.code, path).toBe("VALIDATION_ERROR");
    }
  });

  it("a standard method a route does not take is 405 in the contract's shape", async () => {
    for (const [method, path] of [["PATCH", "/api/openapi.json"], ["GET", "/track"], ["DELETE", "/sdk/participants"], ["PUT", "/api/health"]]) {
      const a = await send(method, path, { "x-api-key": secret });
      expect(a.status, `${method} ${path}`).toBe(405);
      expect(JSON.parse(a.text).error.code, `${method} ${path}`).toBe("METHOD_NOT_ALLOWED");
    }
  });

  it("a method the document does not list for a business path is 405 with Allow, not 404", async () => {
    const a = await send("PUT", "/business/config", { authorization: `Bearer ${owner.token}`, "content-type": "application/json" }, "{}");
    expect(a.status).toBe(405);
    expect(JSON.parse(a.text).error.code).toBe("METHOD_NOT_ALLOWED");
    const r = await request(baseUrl(), "DELETE", "/business/events", undefined, { authorization: `Bearer ${owner.token}` });
    expect(r.status).toBe(405);
    expect(r.headers.get("allow")).toBe("GET, POST");
    expect((await owner.call("GET", "/business/no-such-thing")).status).toBe(404);
  });
});
