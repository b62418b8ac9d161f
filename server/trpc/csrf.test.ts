// Cookie-authenticated state-changing requests from another site are refused (403 CSRF) on the
// REST face and on tRPC, in process with a real Better Auth session cookie.
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { beforeAll, describe, expect, it } from "vitest";
import { auth } from "../auth/better-auth";
import { appRouter } from "../routers/_app";
import { env } from "../shared/env";
import { createContext } from "./init";
import { handleBusinessRest } from "../rest/business-rest";

let cookie = "";
let token = "";

beforeAll(async () => {
  const r = await auth.api.signUpEmail({ body: { email: "csrf-owner@example.com", password: "correct-horse-battery", name: "C", businessName: "Csrf Co" } as never, returnHeaders: true });
  const set = r.headers.get("set-cookie") ?? "";
  cookie = set.split(";")[0];
  token = (r.response as { token: string }).token;
  expect(cookie).toMatch(/session_token=/);
});

const rest = (headers: Record<string, string>) =>
  handleBusinessRest(
    new Request("http://127.0.0.1/business/config/general", { method: "PATCH", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify({ businessName: "Changed" }) }),
  );
const trpc = (headers: Record<string, string>) => {
  const req = new Request("http://127.0.0.1/api/trpc/config.updateGeneral", { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify({ businessName: "Changed" }) });
  return fetchRequestHandler({ endpoint: "/api/trpc", req, router: appRouter, createContext: () => createContext(req) });
};

describe("CSRF", () => {
  it("refuses a foreign Origin, Origin: null and Sec-Fetch-Site: cross-site with a cookie session", async () => {
    const cases: Array<Record<string, string>> = [{ origin: "https://evil.example" }, { origin: "null" }, { "sec-fetch-site": "cross-site" }];
    for (const h of cases) {
      const r = await rest({ cookie, ...h });
      expect(r.status).toBe(403);
      expect(((await r.json()) as { error: { code: string } }).error.code).toBe("CSRF");
      const t = await trpc({ cookie, ...h });
      expect(t.status).toBe(403);
      expect(JSON.stringify(await t.json())).toContain('"CSRF"');
    }
  });

  it("lets same-origin cookie requests and Bearer requests through", async () => {
    expect((await rest({ cookie, origin: env.appUrl, "sec-fetch-site": "same-origin" })).status).toBe(200);
    expect((await rest({ cookie })).status).toBe(200);
    expect((await rest({ authorization: `Bearer ${token}`, origin: "https://evil.example" })).status).toBe(200);
    expect((await trpc({ cookie, origin: env.appUrl })).status).toBe(200);
  });

  it("reads stay readable cross-site (no state change)", async () => {
    const r = await handleBusinessRest(new Request("http://127.0.0.1/business/config", { headers: { cookie, "sec-fetch-site": "cross-site" } }));
    expect(r.status).toBe(200);
  });
});
