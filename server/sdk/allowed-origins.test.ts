// allowedOrigins as stored: impossible ports refused, default ports dropped (a browser's Origin
// never carries them, so "https://x:443" stored as written would never match).
import { describe, expect, it } from "vitest";
import { createApiKeyInput } from "../domain/api-keys/schemas";
import { originAllowed } from "./origin";

const parse = (allowedOrigins: string[]) => createApiKeyInput.safeParse({ environment: "TEST", kind: "PUBLISHABLE", allowedOrigins });

describe("allowedOrigins", () => {
  it("refuses ports 0 and above 65535", () => {
    for (const o of ["https://shop.example.com:0", "https://shop.example.com:99999", "https://shop.example.com:65536", "http://*.example.com:00000"]) expect(parse([o]).success, o).toBe(false);
    for (const o of ["https://shop.example.com:1", "https://shop.example.com:65535", "http://localhost:3000"]) expect(parse([o]).success, o).toBe(true);
  });

  it("stores default ports normalised, so the browser's Origin matches", () => {
    const r = parse(["https://Shop.example.com:443/", "http://shop.example.com:80", "https://*.example.com:443", "https://shop.example.com:8443", "http://shop.example.com:0443", "https://a.example.com:080"]);
    expect(r.success && r.data.allowedOrigins).toEqual([
      "https://shop.example.com",
      "http://shop.example.com",
      "https://*.example.com",
      "https://shop.example.com:8443",
      "http://shop.example.com:443",
      "https://a.example.com:80",
    ]);
    const stored = r.success ? r.data.allowedOrigins! : [];
    expect(originAllowed("https://shop.example.com", stored)).toBe(true);
    expect(originAllowed("https://www.example.com", stored)).toBe(true);
  });
});
