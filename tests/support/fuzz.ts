// Hostile inputs for the property-based tests (fast-check), and a fingerprint of what the
// database holds, so that "a 4xx writes nothing" can be asserted after every request.
import fc from "fast-check";
import { db } from "../../server/db/client";

/** Text a hostile client would try: C0 controls, lone surrogates, prototype names, number-like strings. */
export const hostileString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 20 }),
  fc.constantFrom(
    "\u0000", "a\u0000b", "\u0007bell", "x\u001fy", "\ud800", "x\udc00y", "tab\there", "line\nbreak", "cr\rok",
    "__proto__", "constructor", "0x10", "60", "7", "", " ", "true", "https://*.com", "https://*.example.com", "null",
    "purchase", "signup", "TEST", "LIVE", "a@example.com",
  ),
);

// Deep values stay placeholders until bodyText() writes the JSON text (so that fast-check can
// print and shrink a counterexample without walking 20,000 levels).
const deepArray = fc.integer({ min: 30, max: 20_000 }).map((n) => `@@DEEP_ARRAY_${n}@@`);
const deepObject = fc.integer({ min: 30, max: 6_000 }).map((n) => `@@DEEP_OBJECT_${n}@@`);
const protoObject = fc.constantFrom("__proto__", "constructor", "prototype").map((k) => JSON.parse(`{"${k}":{"x":1},"y":2}`) as unknown);

export const hostileValue: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    hostileString,
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("v"), { maxLength: 4 }),
    fc.dictionary(hostileString, tie("v"), { maxKeys: 4 }),
    deepArray,
    deepObject,
    protoObject,
  ),
})).v;

/** An object body using field names the API knows (so validation and success paths both run). */
export const hostileBody = (keys: readonly string[]) =>
  fc.oneof(
    fc.dictionary(fc.oneof(fc.constantFrom(...keys), hostileString), hostileValue, { maxKeys: 6 }),
    hostileValue,
  );

/** JSON text of a value, keeping own "__proto__" keys (JSON.stringify does) — or garbage text. */
export const bodyText = (v: unknown) => {
  let text: string;
  try {
    text = JSON.stringify(v) ?? "null";
  } catch {
    return "{";
  }
  return text
    .replace(/"@@DEEP_ARRAY_(\d+)@@"/g, (_, n) => "[".repeat(Number(n)) + "]".repeat(Number(n)))
    .replace(/"@@DEEP_OBJECT_(\d+)@@"/g, (_, n) => '{"a":'.repeat(Number(n)) + "1" + "}".repeat(Number(n)));
};

/** A digest of every row of the given tables: equal digests ⇔ nothing was written. */
export async function fingerprint(tables: readonly string[]): Promise<string> {
  const parts: string[] = [];
  for (const t of tables) {
    const rows = await db.$queryRawUnsafe<Array<{ d: string | null; n: number }>>(
      `SELECT md5(coalesce(string_agg(x::text, '|' ORDER BY x::text), '')) AS d, count(*)::int AS n FROM "${t}" x`,
    );
    parts.push(`${t}:${rows[0].n}:${rows[0].d}`);
  }
  return parts.join(",");
}
