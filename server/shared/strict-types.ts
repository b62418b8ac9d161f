// Strict boolean and number types for inputs: every boolean and number of every input schema is
// one of these atoms (server/routers/strict-inputs.test.ts checks the whole router). The REST adapter (trpc-to-openapi) switches every plain
// z.number()/z.boolean() it can reach in an input object to coercion — and does so by mutating
// the shared schema, so tRPC calls would coerce too: `true` → 1, "60" → 60, [5] → 5. A pipe is
// never reached by that rewrite, so these stay strict: a JSON number is a number, nothing else.
// Only query strings parse numbers, and only from decimal digits (with an optional minus: list
// limits clamp "-7" to 1, as the contract says).
import { z } from "zod";

/** A JSON boolean, strictly ("false", 0, null, "" or [true] → 400); literals are left alone by the rewrite. */
export const strictBoolean = z.union([z.literal(true), z.literal(false)]);

/** A JSON number, strictly (a boolean, a string or an array is a 400). */
export const strictNumber = (schema: z.ZodNumber) => schema.pipe(z.number());

/**
 * A number sent in a query string: decimal digits with an optional minus ("0x10", "1e3", " 7", "+1" → 400).
 * Numbers pass (tRPC). Up to 16 digits: every integer the document allows (the safe integers)
 * is read, and the schema then decides.
 */
export const queryNumber = (schema: z.ZodNumber) =>
  z.preprocess((v) => (typeof v === "string" && /^-?\d{1,16}$/.test(v) ? Number(v) : v), schema);
