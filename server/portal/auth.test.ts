// The portal cookie's attributes: HttpOnly, SameSite=Lax, scoped to /portal, and Secure wherever
// the app is not served from a local address (a plain-http local app could not keep it).
import { afterEach, describe, expect, it } from "vitest";
import { portalCookie, portalTokenOf } from "./auth";

const saved = process.env.APP_URL;
afterEach(() => {
  if (saved === undefined) delete process.env.APP_URL;
  else process.env.APP_URL = saved;
});

const attrs = (cookie: string) => cookie.split(";").map((p) => p.trim());

describe("portalCookie", () => {
  it.each(["https://referrals.example.com", "http://referrals.example.com", "https://localhost:3000", "http://10.0.0.5:3000"])("is Secure at %s", (url) => {
    process.env.APP_URL = url;
    const a = attrs(portalCookie("pt_test_x", 600));
    expect(a).toEqual(["portal_session=pt_test_x", "Path=/portal", "HttpOnly", "SameSite=Lax", "Max-Age=600", "Secure"]);
  });
  it.each(["http://localhost:3000", "http://127.0.0.1:4010", "http://[::1]:3000"])("is not Secure on the local address %s", (url) => {
    process.env.APP_URL = url;
    const a = attrs(portalCookie("pt_test_x", 600));
    expect(a).toEqual(["portal_session=pt_test_x", "Path=/portal", "HttpOnly", "SameSite=Lax", "Max-Age=600"]);
  });
  it("clears with Max-Age=0", () => {
    expect(attrs(portalCookie("", -5))).toContain("Max-Age=0");
  });
});

describe("portalTokenOf", () => {
  it("prefers Authorization: Bearer, else reads the portal cookie among others", () => {
    expect(portalTokenOf(new Headers({ authorization: "Bearer pt_test_a", cookie: "portal_session=pt_test_b" }))).toEqual({ token: "pt_test_a", via: "bearer" });
    expect(portalTokenOf(new Headers({ cookie: "x=1; portal_session=pt_test_b; y=2" }))).toEqual({ token: "pt_test_b", via: "cookie" });
    expect(portalTokenOf(new Headers({ authorization: "Basic abc" }))).toEqual({ token: "", via: "bearer" });
    expect(portalTokenOf(new Headers())).toEqual({ token: null, via: null });
  });
});
