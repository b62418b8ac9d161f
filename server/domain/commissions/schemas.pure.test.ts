// The simulation's input: a bad date is a validation message about that date, never an internal
// error from the range checks that compare the two dates.
import { describe, expect, it } from "vitest";
import { simulateInput } from "./schemas";

const rule = { eventName: "purchase", recipient: "REFERRER", type: "FIXED", amount: "1", currency: "ETH" };

describe("simulate input", () => {
  it("an empty or unreadable from / to is a validation issue on that field", () => {
    for (const [from, to] of [["", "2026-01-01"], ["2026-01-01", ""], ["yesterday", "tomorrow"], [7, null]] as const) {
      const r = simulateInput.safeParse({ environment: "TEST", rule, from, to });
      expect(r.success, `${from} ${to}`).toBe(false);
      const messages = r.error!.issues.map((i) => i.message).join(" | ");
      expect(messages).not.toMatch(/is not a function|undefined|null/i);
      expect(r.error!.issues.some((i) => i.path[0] === "from" || i.path[0] === "to")).toBe(true);
    }
  });

  it("no body, null or a list is a validation issue too", () => {
    for (const v of [undefined, null, [], "x"]) expect(simulateInput.safeParse(v).success).toBe(false);
  });

  it("the range rules still hold for real dates", () => {
    expect(simulateInput.safeParse({ environment: "TEST", rule, from: "2026-01-01", to: "2026-02-01" }).success).toBe(true);
    const reversed = simulateInput.safeParse({ environment: "TEST", rule, from: "2026-02-01", to: "2026-01-01" });
    expect(reversed.error?.issues.map((i) => i.message)).toEqual(["to must be after from"]);
    const long = simulateInput.safeParse({ environment: "TEST", rule, from: "2024-01-01", to: "2026-01-01" });
    expect(long.error?.issues.map((i) => i.message)).toEqual(["At most 366 days"]);
  });
});
