// The public proof routes' rate limit: per client address (the header the HTTP server stamps),
// at the publishable keys' rate; past it, 429 RATE_LIMITED in the contract's error shape with
// Retry-After, while another address is still answered.
import { describe, expect, it } from "vitest";
import { CLIENT_IP_HEADER } from "../../shared/client-ip";
import { GET } from "./proofs";

const ask = (ip: string) =>
  GET(new Request("http://localhost/proofs/b/NOPE/latest", { headers: { [CLIENT_IP_HEADER]: ip } }), {
    params: Promise.resolve({ businessId: "b", environment: "NOPE" }),
  });

describe("GET /proofs/:businessId/:environment/…", () => {
  it("answers 429 with Retry-After once an address has spent its rate and burst; other addresses are unaffected", async () => {
    const answers: Response[] = [];
    for (let i = 0; i < 150; i++) answers.push(await ask("203.0.113.7"));
    const first = answers[0];
    expect(first.status).toBe(404);
    expect(first.headers.get("ratelimit-limit")).toBe("10");
    const limited = answers.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    const r = limited[0];
    expect(await r.json()).toEqual({ error: { code: "RATE_LIMITED", message: expect.any(String) } });
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(r.headers.get("ratelimit-remaining")).toBe("0");
    expect(r.headers.get("access-control-allow-origin")).toBe("*");
    expect((await ask("203.0.113.8")).status).toBe(404);
  });
});
