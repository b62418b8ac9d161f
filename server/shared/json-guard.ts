// One check of everything a client sends as JSON (SDK bodies, REST bodies, tRPC inputs, query
// strings and path segments), run before any schema, so that input no database or schema
// should see becomes a 400 that writes nothing:
// - text (values and keys) without C0 control characters other than tab, newline and carriage
//   return (U+0000–U+0008, U+000B, U+000C, U+000E–U+001F), and without lone UTF-16 surrogates;
// - at most MAX_JSON_DEPTH levels of arrays/objects, checked with an explicit stack (no
//   recursion, so no depth can overflow the call stack);
// - no prototype keys ("__proto__", "constructor", "prototype"): refused, never dropped; in a
//   query string, no name Object.prototype has either ("valueOf", "toString", …).
import { AppError } from "./errors";

export const MAX_JSON_DEPTH = 32;
const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

// eslint-disable-next-line no-control-regex
const FORBIDDEN_CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export interface JsonProblem {
  path: string;
  message: string;
}

/**
 * Text received from a third party that is kept, not refused (an endpoint's answer): each control
 * character that textProblem would refuse becomes U+FFFD, so that no database refuses the row
 * (PostgreSQL takes no NUL in text or jsonb).
 */
export function storableText(s: string): string {
  return s.replace(new RegExp(FORBIDDEN_CONTROL.source, "g"), "\uFFFD");
}

/**
 * The first `max` UTF-16 units of `s`, without a surrogate pair cut in two (a lone surrogate is
 * text JSON-encoded rows cannot carry into PostgreSQL).
 */
export function clipText(s: string, max: number): string {
  const cut = s.slice(0, max);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/** Why a string may not be stored, or null. */
export function textProblem(s: string): string | null {
  if (FORBIDDEN_CONTROL.test(s)) return "must not contain control characters (tab, newline and carriage return excepted)";
  if (LONE_SURROGATE.test(s)) return "must be valid Unicode (no lone surrogates)";
  return null;
}

export interface InspectOptions {
  maxDepth?: number;
  /** Paths (e.g. "events") whose array items are not inspected here (a batch checks each item alone). */
  opaqueItemsAt?: string;
}

/** The first problem of a parsed JSON value, or null. Iterative: any depth is safe to inspect. */
export function inspectJson(value: unknown, opts: InspectOptions = {}): JsonProblem | null {
  const maxDepth = opts.maxDepth ?? MAX_JSON_DEPTH;
  const stack: Array<{ v: unknown; path: string; depth: number }> = [{ v: value, path: "", depth: 0 }];
  while (stack.length > 0) {
    const { v, path, depth } = stack.pop()!;
    if (typeof v === "string") {
      const p = textProblem(v);
      if (p) return { path, message: p };
      continue;
    }
    if (v === null || typeof v !== "object") continue;
    if (depth + 1 > maxDepth) return { path, message: `nesting deeper than ${maxDepth} levels` };
    const opaque = opts.opaqueItemsAt !== undefined && path === opts.opaqueItemsAt && Array.isArray(v);
    if (Array.isArray(v)) {
      if (opaque) continue;
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], path: path ? `${path}.${i}` : String(i), depth: depth + 1 });
      continue;
    }
    const keys = Object.keys(v);
    for (let i = keys.length - 1; i >= 0; i--) {
      const k = keys[i];
      const at = path ? `${path}.${k}` : k;
      if (PROTOTYPE_KEYS.has(k)) return { path: at, message: `the key "${k}" is not allowed` };
      const p = textProblem(k);
      if (p) return { path: at, message: `key ${p}` };
      stack.push({ v: (v as Record<string, unknown>)[k], path: at, depth: depth + 1 });
    }
  }
  return null;
}

export function invalidInput(problem: JsonProblem): AppError {
  return new AppError("VALIDATION_ERROR", "Request validation failed", [problem]);
}

/** Throws 400 VALIDATION_ERROR for the first problem of a JSON value. */
export function assertCleanJson(value: unknown, opts?: InspectOptions): void {
  const p = inspectJson(value, opts);
  if (p) throw invalidInput(p);
}

/** A request body must be a JSON object: an array, a string, a number or null is a 400 (never read as {}). */
export function assertJsonObject(value: unknown): asserts value is Record<string, unknown> {
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    throw new AppError("VALIDATION_ERROR", "The body must be a JSON object", [{ path: "", message: "expected an object" }]);
  }
}

/** Path segments (decoded) and query parameters of a URL: the same text rules. */
export function assertCleanUrl(url: URL): void {
  for (const seg of url.pathname.split("/")) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(seg);
    } catch {
      throw invalidInput({ path: "path", message: "malformed percent-encoding" });
    }
    const p = textProblem(decoded);
    if (p) throw invalidInput({ path: "path", message: p });
  }
  for (const [k, v] of url.searchParams) {
    const p = textProblem(k) ?? textProblem(v);
    if (p) throw invalidInput({ path: k, message: p });
    // The REST face parses the query into a plain object: a name that object inherits
    // ("valueOf", "toString", "hasOwnProperty", …) would collide with it.
    if (PROTOTYPE_KEYS.has(k) || k in Object.prototype) throw invalidInput({ path: k, message: `the parameter "${k}" is not allowed` });
  }
}
