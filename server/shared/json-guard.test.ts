import { describe, expect, it } from "vitest";
import { assertCleanUrl, inspectJson, MAX_JSON_DEPTH, textProblem } from "./json-guard";

describe("json guard", () => {
  it("refuses NUL and other C0 controls, keeps tab, newline and carriage return", () => {
    for (const c of ["\u0000", "\u0001", "\u0008", "\u000b", "\u000c", "\u000e", "\u001f"]) expect(textProblem(`a${c}b`)).not.toBeNull();
    expect(textProblem("a\tb\nc\r\nd")).toBeNull();
    expect(inspectJson({ metadata: { note: "x\u0000" } })).toMatchObject({ path: "metadata.note" });
    expect(inspectJson({ metadata: { ["k\u0000"]: 1 } })).toMatchObject({ path: "metadata.k\u0000" });
  });

  it("refuses lone surrogates, keeps pairs", () => {
    expect(textProblem("\ud800")).not.toBeNull();
    expect(textProblem("a\udc00")).not.toBeNull();
    expect(textProblem("\ud83d\ude00 ok")).toBeNull();
  });

  it("refuses prototype keys anywhere instead of dropping them", () => {
    for (const k of ["__proto__", "constructor", "prototype"]) {
      expect(inspectJson(JSON.parse(`{"metadata":{"${k}":{"admin":true}}}`))).toMatchObject({ path: `metadata.${k}` });
      expect(inspectJson(JSON.parse(`{"${k}":1}`))).toMatchObject({ path: k });
    }
  });

  it("refuses query names a plain object inherits (the REST face parses the query into one)", () => {
    for (const k of ["valueOf", "toString", "hasOwnProperty", "__proto__", "constructor"]) {
      expect(() => assertCleanUrl(new URL(`http://x/business/members?${k}=1`)), k).toThrow(expect.objectContaining({ details: [expect.objectContaining({ message: expect.stringContaining("not allowed") })] }));
    }
    expect(() => assertCleanUrl(new URL("http://x/business/events?limit=5&value=1"))).not.toThrow();
  });

  it(`checks depth without recursion (limit ${MAX_JSON_DEPTH})`, () => {
    const deep = JSON.parse("[".repeat(200_000) + "]".repeat(200_000));
    expect(inspectJson(deep)).toMatchObject({ message: expect.stringContaining("nesting") });
    const objects = JSON.parse('{"a":'.repeat(50_000) + "1" + "}".repeat(50_000));
    expect(inspectJson(objects)).not.toBeNull();
    const ok = JSON.parse("[".repeat(MAX_JSON_DEPTH) + "]".repeat(MAX_JSON_DEPTH));
    expect(inspectJson(ok)).toBeNull();
    expect(inspectJson(JSON.parse("[".repeat(MAX_JSON_DEPTH + 1) + "]".repeat(MAX_JSON_DEPTH + 1)))).not.toBeNull();
  });
});
