// Every boolean and number of every procedure's input is a strict atom (server/shared/strict-types.ts).
// The REST adapter rewrites each z.number()/z.boolean()/z.bigint()/z.date() it reaches in an input
// object (through optional, nullable, default, array and nested objects) into a coercing schema,
// under which "false" is true and null, "" and [7] are numbers; this walks the same paths.
import { describe, expect, it } from "vitest";
import { appRouter } from "./_app";
import { updateSpendInput } from "../domain/config/schemas";
import { rotateWebhookSecretInput, updateWebhookInput } from "../domain/webhooks/schemas";

type Def = { type: string; shape?: Record<string, unknown>; innerType?: unknown; element?: unknown; getter?: () => unknown };
const defOf = (s: unknown): Def => (s as { _zod: { def: Def } })._zod.def;

function unwrap(s: unknown): unknown {
  const d = defOf(s);
  if (d.type === "array") return unwrap(d.element);
  if (["nullable", "optional", "default", "prefault"].includes(d.type)) return unwrap(d.innerType);
  if (d.type === "lazy") return unwrap(d.getter!());
  return s;
}

/** Paths of the input fields the adapter would turn into coercion. */
function coercible(schema: unknown, path = ""): string[] {
  const s = unwrap(schema);
  const d = defOf(s);
  if (d.type !== "object") return ["number", "boolean", "bigint", "date"].includes(d.type) ? [path] : [];
  return Object.entries((s as { shape: Record<string, unknown> }).shape).flatMap(([k, v]) => coercible(v, path ? `${path}.${k}` : k));
}

describe("strict inputs", () => {
  it("no procedure input holds a boolean or number the REST adapter can coerce", () => {
    const procedures = (appRouter as unknown as { _def: { procedures: Record<string, { _def: { inputs: unknown[] } }> } })._def.procedures;
    const found: string[] = [];
    for (const [name, p] of Object.entries(procedures)) {
      for (const input of p._def.inputs) if (defOf(unwrap(input)).type === "object") found.push(...coercible(input).map((f) => `${name}: ${f}`));
    }
    expect(Object.keys(procedures).length).toBeGreaterThan(50);
    expect(found).toEqual([]);
  });

  it.each([
    ["webhooks.update enabled", updateWebhookInput, { webhookId: "w", enabled: "false" }],
    ["webhooks.update enabled", updateWebhookInput, { webhookId: "w", enabled: null }],
    ["webhooks.update enabled", updateWebhookInput, { webhookId: "w", enabled: [true] }],
    ["webhooks.rotate overlapSeconds", rotateWebhookSecretInput, { webhookId: "w", overlapSeconds: null }],
    ["webhooks.rotate overlapSeconds", rotateWebhookSecretInput, { webhookId: "w", overlapSeconds: "" }],
    ["webhooks.rotate overlapSeconds", rotateWebhookSecretInput, { webhookId: "w", overlapSeconds: [7] }],
    ["config.spend payoutHoldDays", updateSpendInput, { payoutHoldDays: null }],
    ["config.spend payoutHoldDays", updateSpendInput, { payoutHoldDays: "" }],
    ["config.spend payoutHoldDays", updateSpendInput, { payoutHoldDays: "3" }],
    ["config.spend autoPayoutEnabled", updateSpendInput, { autoPayoutEnabled: "false" }],
  ])("%s refuses %j", (_name, schema, value) => {
    expect(schema.safeParse(value).success).toBe(false);
  });
});
