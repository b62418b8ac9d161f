// allowedOrigins matching and the API-key header precedence, in-process.
import { describe, expect, it } from "vitest";
import { createApiKeyInput } from "../domain/api-keys/schemas";
import { originAllowed, originOf, requestOrigin } from "./origin";
import { extractApiKey } from "./with-sdk-key";

describe("wildcards under a registrable domain only", () => {
  it.each([
    ["https://*.example.com", true],
    ["https://*.shop.example.co.uk", true],
    ["https://*.com", false],
    ["https://*.co.uk", false],
    ["https://*.github.io", false],
    ["https://*.localhost", false],
  ])("%s → %s", (entry, ok) => {
    expect(createApiKeyInput.safeParse({ environment: "TEST", allowedOrigins: [entry] }).success).toBe(ok);
    expect(originAllowed("https://victim.com", [entry]) || originAllowed("https://a.shop.example.co.uk", [entry]) || originAllowed("https://x.example.com", [entry])).toBe(ok);
  });
});

describe("origin matching", () => {
  const allowed = ["https://shop.example.com", "https://*.example.org", "http://localhost:3000"];
  it.each([
    ["https://shop.example.com", true],
    ["https://SHOP.example.com", true],
    ["https://shop.example.com:443", true],
    ["https://a.example.org", true],
    ["https://a.b.example.org", true],
    ["http://localhost:3000", true],
    ["https://example.org", false],
    ["https://evilexample.org", false],
    ["http://a.example.org", false],
    ["https://a.example.org:8443", false],
    ["https://shop.example.com.evil.io", false],
    ["https://a..example.org", false],
    ["https://a..b.example.org", false],
    ["http://localhost:3001", false],
  ])("%s → %s", (origin, ok) => {
    expect(originAllowed(originOf(origin)!, allowed)).toBe(ok);
  });

  it("a wildcard matches whole labels only: an empty label is no subdomain", () => {
    expect(originAllowed(originOf("https://a.b.example.org")!, ["https://*.b.example.org"])).toBe(true);
    expect(originAllowed(originOf("https://a..b.example.org")!, ["https://*.b.example.org"])).toBe(false);
    expect(originAllowed(originOf("https://..b.example.org")!, ["https://*.b.example.org"])).toBe(false);
  });

  it("takes Origin first, else the origin of Referer; ignores 'null' and non-http schemes", () => {
    expect(requestOrigin(new Headers({ origin: "https://a.example.org", referer: "https://x.io/p" }))).toBe("https://a.example.org");
    expect(requestOrigin(new Headers({ referer: "https://x.io/p?q=1" }))).toBe("https://x.io");
    expect(requestOrigin(new Headers({ origin: "null" }))).toBeNull();
    // a sent Origin, even "null", is never replaced by the Referer
    expect(requestOrigin(new Headers({ origin: "null", referer: "https://a.example.org/p" }))).toBeNull();
    expect(requestOrigin(new Headers({ referer: "file:///etc/passwd" }))).toBeNull();
    expect(requestOrigin(new Headers())).toBeNull();
  });
});

describe("API key headers", () => {
  it("x-service-api-key, then x-api-key, then Authorization: Bearer", () => {
    expect(extractApiKey(new Headers({ "x-service-api-key": "a", "x-api-key": "b", authorization: "Bearer c" }))).toBe("a");
    expect(extractApiKey(new Headers({ "x-api-key": "b", authorization: "Bearer c" }))).toBe("b");
    expect(extractApiKey(new Headers({ authorization: "bearer  c " }))).toBe("c");
    expect(extractApiKey(new Headers({ authorization: "Basic abc" }))).toBe("");
    expect(extractApiKey(new Headers())).toBeNull();
  });
});
