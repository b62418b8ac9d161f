// The one code→words map: codes become words, a reviewer's free-text note stays as written.
import { describe, expect, it } from "vitest";
import { reasonText } from "./reasons";

describe("reasonText", () => {
  it("puts reason codes into words and leaves unknown codes readable", () => {
    expect(reasonText("PRICE_UNAVAILABLE")).not.toBe("PRICE_UNAVAILABLE");
    expect(reasonText("SOME_NEW_CODE")).toBe("some new code");
    expect(reasonText("SOME_NEW_CODE, OTHER_CODE")).toBe("some new code; other code");
  });
  it("shows a reviewer's note as written", () => {
    expect(reasonText("Checked the order")).toBe("Checked the order");
    expect(reasonText("OK, refund agreed")).toBe("OK, refund agreed");
  });
});
