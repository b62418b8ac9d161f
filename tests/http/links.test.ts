// Referral links over real HTTP: GET /r/:code answers 302 with the code and a click id, never an
// open redirect; HEAD and link previews are redirected but not counted; clicks reach the funnel
// and the referral (clickId); a SIGTERM right after the redirects loses no click.
import { afterAll, describe, expect, it } from "vitest";
import { startApp } from "../support/app";
import { ownDatabase, withDatabase } from "../support/database";
import { baseUrl, createKey, request, signUp, type Owner } from "../support/http";
import { makeParticipant } from "./sdk-helpers";

const BROWSER = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15";
const DEST = "http://landing.localhost:4010/welcome";

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => {});
});

async function follow(path: string, opts: { method?: string; ua?: string; url?: string; headers?: Record<string, string> } = {}) {
  const res = await fetch(`${opts.url ?? baseUrl()}${path}`, { method: opts.method ?? "GET", redirect: "manual", headers: { "user-agent": opts.ua ?? BROWSER, ...opts.headers } });
  const text = await res.text();
  return { status: res.status, location: res.headers.get("location"), cacheControl: res.headers.get("cache-control"), body: text ? (JSON.parse(text) as { error: { code: string } }) : null };
}

async function program(url?: string): Promise<{ owner: Owner; secret: string; code: string; handle: string; url: string }> {
  const owner = await signUp(url ? { url } : {});
  const r = await owner.call("PATCH", "/business/config/general", { environment: "TEST", linkDestinationUrl: DEST });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  const { secret } = await createKey(owner);
  const handle = `ann${Date.now().toString(36)}${Math.floor(Math.random() * 1e6)}`;
  const p = await makeParticipant(secret, { userId: `ann-${handle}`, handle }, url ?? baseUrl());
  return { owner, secret, code: p.referralCode, handle, url: url ?? baseUrl() };
}

describe("link settings", () => {
  it("are per environment on PATCH /business/config/general and GET /business/config; LIVE needs https", async () => {
    const owner = await signUp();
    const test = await owner.call("PATCH", "/business/config/general", { environment: "TEST", linkDestinationUrl: "http://localhost:5173/", linkParam: "via", attribution: "FIRST_CLICK" });
    expect(test.status, JSON.stringify(test.body)).toBe(200);
    expect(test.body.general).toMatchObject({ linkDestinationUrl: "http://localhost:5173/", linkParam: "via", attribution: "FIRST_CLICK" });
    const live = (await owner.call("GET", "/business/config?environment=LIVE")).body.general;
    expect(live).toMatchObject({ linkDestinationUrl: null, linkParam: "ref", attribution: "LAST_CLICK" });
    for (const bad of [
      { environment: "LIVE", linkDestinationUrl: "http://example.com/" },
      { linkDestinationUrl: "http://example.com/" },
      { environment: "TEST", linkDestinationUrl: "javascript:alert(1)" },
      { environment: "TEST", linkDestinationUrl: "https://user:pw@example.com/" },
      { environment: "TEST", linkParam: "rts_click" },
      { environment: "TEST", attribution: "MIDDLE_CLICK" },
    ]) {
      const r = await owner.call("PATCH", "/business/config/general", bad);
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(r.body.error.code).toBe("VALIDATION_ERROR");
    }
    const ok = await owner.call("PATCH", "/business/config/general", { environment: "LIVE", linkDestinationUrl: "https://example.com/start" });
    expect(ok.body.general.linkDestinationUrl).toBe("https://example.com/start");
  });
});

describe("GET /r/:code", () => {
  it("302 to the destination with ref=CODE&rts_click=ID and the link's utm_* parameters, not cached", async () => {
    const p = await program();
    const r = await follow(`/r/${p.code}?utm_source=newsletter&utm_campaign=launch&x=1`);
    expect(r.status).toBe(302);
    expect(r.cacheControl).toBe("no-store");
    const u = new URL(r.location!);
    expect(u.origin + u.pathname).toBe(DEST);
    expect(u.searchParams.get("ref")).toBe(p.code);
    expect(u.searchParams.get("rts_click")).toMatch(/^[A-Za-z0-9_-]{10,64}$/);
    expect(u.searchParams.get("utm_source")).toBe("newsletter");
    expect(u.searchParams.get("utm_campaign")).toBe("launch");
    expect(u.searchParams.get("x")).toBeNull();
    // The handle works too; the destination receives the code.
    expect(new URL((await follow(`/r/${p.handle}`)).location!).searchParams.get("ref")).toBe(p.code);
  });

  it("keeps `to` on the destination's site and ignores every way out", async () => {
    const p = await program();
    const ok = new URL((await follow(`/r/${p.code}?to=${encodeURIComponent("/pricing?plan=pro")}`)).location!);
    expect(ok.origin + ok.pathname).toBe("http://landing.localhost:4010/pricing");
    for (const to of ["//evil.com", "/\\evil.com", "\\\\evil.com", "https://evil.com", "javascript:alert(1)", "/%2F%2Fevil.com", "%2F%2Fevil.com", "/%5Cevil.com", "/%255C%255Cevil.com", "/\t/evil.com", "http:\\\\evil.com"]) {
      const r = await follow(`/r/${p.code}?to=${encodeURIComponent(to)}`);
      expect(r.status, to).toBe(302);
      const u = new URL(r.location!);
      expect(u.origin + u.pathname, to).toBe(DEST);
    }
    // A raw, unencoded attempt in the query.
    const raw = await follow(`/r/${p.code}?to=//evil.com/x`);
    expect(new URL(raw.location!).host).toBe("landing.localhost:4010");
  });

  it("HEAD and link previews are redirected; no destination → 404 in the error shape", async () => {
    const p = await program();
    const head = await fetch(`${baseUrl()}/r/${p.code}`, { method: "HEAD", redirect: "manual" });
    expect(head.status).toBe(302);
    expect(new URL(head.headers.get("location")!).searchParams.get("rts_click")).toBeNull();
    const bot = await follow(`/r/${p.code}`, { ua: "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)" });
    expect(bot.status).toBe(302);
    // What is not a page navigation (an <img> or <iframe> on another site, a prefetch) lands
    // without a click id: no click is recorded for it. A navigation is.
    const notClicks: Record<string, string>[] = [{ "sec-fetch-dest": "image" }, { "sec-fetch-dest": "iframe" }, { "sec-fetch-dest": "document", "sec-purpose": "prefetch" }];
    for (const headers of notClicks) {
      const r = await follow(`/r/${p.code}`, { headers });
      expect(r.status).toBe(302);
      expect(new URL(r.location!).searchParams.get("rts_click"), JSON.stringify(headers)).toBeNull();
    }
    const clicked = await follow(`/r/${p.code}`, { headers: { "sec-fetch-dest": "document", "sec-fetch-mode": "navigate" } });
    expect(new URL(clicked.location!).searchParams.get("rts_click")).toEqual(expect.any(String));
    const bare = await signUp();
    const { secret } = await createKey(bare);
    const nobody = await makeParticipant(secret, { userId: "no-destination" });
    const none = await follow(`/r/${nobody.referralCode}`);
    expect(none.status).toBe(404);
    expect(none.body?.error.code).toBe("NOT_FOUND");
    expect(none.cacheControl).toBe("no-store");
  });

  it("the click id links the referral; the funnel counts people once per hour and never bots or HEAD", async () => {
    const p = await program();
    const first = new URL((await follow(`/r/${p.code}?utm_source=mail`)).location!).searchParams.get("rts_click")!;
    await follow(`/r/${p.code}?utm_source=mail`); // same visitor, same hour
    await fetch(`${baseUrl()}/r/${p.code}`, { method: "HEAD", redirect: "manual" });
    await follow(`/r/${p.code}`, { ua: "facebookexternalhit/1.1" });
    const applied = await request(baseUrl(), "POST", "/sdk/referrals/apply", { referralCode: p.code, referredUserId: `friend-${p.handle}`, clickId: first }, { "x-api-key": p.secret });
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    const bad = await request(baseUrl(), "POST", "/sdk/referrals/apply", { referralCode: p.code, referredUserId: "x", clickId: "not a click!" }, { "x-api-key": p.secret });
    expect(bad.status).toBe(400);
    const today = new Date().toISOString().slice(0, 10);
    const f = await p.owner.call("GET", `/business/analytics/funnel?environment=TEST&from=${today}&to=${today}&groupBy=utm_source`);
    expect(f.status, JSON.stringify(f.body)).toBe(200);
    expect(f.body.data).toEqual([{ key: "mail", clicks: 1, uniqueClicks: 1, referrals: 1, qualified: 0, rewarded: 0, rewardsEth: "0", paidOutEth: "0" }]);
    const byReferrer = await p.owner.call("GET", `/business/analytics/funnel?environment=TEST&groupBy=referrer`);
    expect(byReferrer.body.data[0]).toMatchObject({ key: p.code, clicks: 1, referrals: 1 });
    expect((await p.owner.call("GET", `/business/analytics/funnel?groupBy=country`)).status).toBe(400);
  });
});

describe("clicks of one machine", () => {
  it("are recorded up to LINK_CLICKS_PER_NETWORK_HOUR per link and hour, whatever user agents it sends; past it the visitor still lands", async () => {
    const own = await ownDatabase();
    cleanups.push(own.drop);
    const app = await startApp({ ...own.env, LINK_CLICKS_PER_NETWORK_HOUR: "3" });
    cleanups.push(() => app.stop());
    const p = await program(app.url);
    const other = await makeParticipant(p.secret, { userId: `other-${p.handle}` }, app.url);
    const clickIds = async (code: string, n: number) => {
      const out: (string | null)[] = [];
      for (let i = 0; i < n; i++) {
        const r = await follow(`/r/${code}`, { url: app.url, ua: `${BROWSER} rotated/${i}` });
        expect(r.status).toBe(302);
        out.push(new URL(r.location!).searchParams.get("rts_click"));
      }
      return out;
    };
    const first = await clickIds(p.code, 5);
    expect(first.slice(0, 3).every((c) => c !== null)).toBe(true);
    expect(first.slice(3)).toEqual([null, null]);
    // Another link of the same hour has its own count.
    expect((await clickIds(other.referralCode, 1))[0]).toEqual(expect.any(String));
  });
});

describe("clicks across a shutdown", () => {
  it("a SIGTERM right after the redirects answered loses no click", async () => {
    const own = await ownDatabase();
    cleanups.push(own.drop);
    // Batches wait up to 10 minutes here: only the flush on SIGTERM can write these clicks.
    const app = await startApp({ ...own.env, CLICK_FLUSH_MS: "600000", LINK_CLICKS_PER_NETWORK_HOUR: "1000" });
    cleanups.push(() => app.stop());
    const p = await program(app.url);
    const N = 40;
    const answers = await Promise.all(Array.from({ length: N }, (_, i) => follow(`/r/${p.code}?utm_campaign=c${i}`, { url: app.url, ua: `${BROWSER} ${i}` })));
    expect(answers.every((a) => a.status === 302)).toBe(true);
    if (own.env.DATABASE_URL) {
      // (PostgreSQL only: a PGlite directory is opened by one process at a time.)
      await withDatabase(own.env, async (sql) => {
        const [row] = await sql(`SELECT count(*)::int AS n FROM "LinkClick" WHERE code = $1`, [p.code]);
        expect(row).toEqual({ n: 0 }); // answered, still in the buffer
      });
    }
    await app.stop();
    await withDatabase(own.env, async (sql) => {
      const [row] = await sql(`SELECT count(*)::int AS n, count(*) FILTER (WHERE counted)::int AS counted FROM "LinkClick" WHERE code = $1`, [p.code]);
      expect(row).toEqual({ n: N, counted: N });
    });
  }, 240_000); // starts and stops an app of its own
});
