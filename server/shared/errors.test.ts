import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AppError, errorResponse, toAppError } from "./errors";

describe("errors", () => {
  it("AppError carries its status and the contract body", async () => {
    const e = new AppError("NOT_OWNER", "Only the owner");
    expect(e.status).toBe(403);
    const res = errorResponse(e);
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: { code: "NOT_OWNER", message: "Only the owner" } });
  });

  it("zod errors become VALIDATION_ERROR with field details", () => {
    const r = z.object({ a: z.number() }).safeParse({ a: "x" });
    const e = toAppError(r.error);
    expect(e.code).toBe("VALIDATION_ERROR");
    expect(e.details).toEqual([{ path: "a", message: expect.any(String) }]);
  });

  it("unknown errors are 500 INTERNAL without internals", async () => {
    const spy = console.error;
    console.error = () => {};
    try {
      const res = errorResponse(new Error('relation "secret_table" does not exist'));
      expect(res.status).toBe(500);
      const body = await res.json();
      expect(body).toEqual({ error: { code: "INTERNAL", message: "An internal error occurred" } });
    } finally {
      console.error = spy;
    }
  });
});
