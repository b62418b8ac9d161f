// Referral links: the Location (never an open redirect), bot user agents, and clicks written in
// batches with one counted click per visitor, link and hour.
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { domainBusiness, participant } from "../../../tests/support/domain";
import { updateGeneralConfig } from "../config/service";
import { updateGeneralInput } from "../config/schemas";
import { upsertParticipant } from "../participants/service";
import { bufferedClicks, enqueueClick, flushClicks } from "./clicks";
import { buildLocation, isSafePath } from "./destination";
import { followLink } from "./redirect";
import { isBotUserAgent } from "./visitor";

const DEST = "https://shop.example.com/landing?lang=en";
const BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36";

describe("buildLocation", () => {
  const at = (query: string) => new URL(buildLocation({ destination: DEST, attribution: { param: "ref", code: "ABCD2345", clickId: "c1" }, query: new URLSearchParams(query) }));

  it("adds the code, the click id and the link's utm_* parameters to the destination", () => {
    const u = at("utm_source=newsletter&utm_campaign=spring&other=x");
    expect(u.origin + u.pathname).toBe("https://shop.example.com/landing");
    expect(Object.fromEntries(u.searchParams)).toEqual({ lang: "en", utm_source: "newsletter", utm_campaign: "spring", ref: "ABCD2345", rts_click: "c1" });
  });

  it("keeps a `to` path on the destination's own site", () => {
    const u = at(`to=${encodeURIComponent("/pricing?plan=pro")}`);
    expect(u.origin).toBe("https://shop.example.com");
    expect(u.pathname).toBe("/pricing");
    expect(u.searchParams.get("plan")).toBe("pro");
    expect(u.searchParams.get("ref")).toBe("ABCD2345");
  });

  it.each([
    "//evil.com",
    "//evil.com/path",
    "/\\evil.com",
    "\\\\evil.com",
    "/\\/evil.com",
    "https://evil.com",
    "http:evil.com",
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    "data:text/html,hi",
    "%2F%2Fevil.com",
    "/%2F%2Fevil.com",
    "/%5Cevil.com",
    "/%255Cevil.com",
    "%252F%252Fevil.com",
    "/%09/evil.com",
    "/\t/evil.com",
    " //evil.com",
    "//\tevil.com",
    "evil.com",
    "@evil.com",
    "/.\\evil.com",
  ])("ignores `to` = %j (stays on the destination)", (to) => {
    expect(isSafePath(to)).toBe(false);
    const u = at(`to=${encodeURIComponent(to)}`);
    expect(u.origin + u.pathname).toBe("https://shop.example.com/landing");
  });

  it("without attribution (unknown code) adds no code and no click id", () => {
    const u = new URL(buildLocation({ destination: DEST, attribution: null, query: new URLSearchParams("utm_source=x") }));
    expect(u.searchParams.get("ref")).toBeNull();
    expect(u.searchParams.get("rts_click")).toBeNull();
    expect(u.searchParams.get("utm_source")).toBe("x");
  });
});

describe("isBotUserAgent", () => {
  it.each([
    "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
    "Twitterbot/1.0",
    "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
    "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)",
    "WhatsApp/2.23.20.0",
    "TelegramBot (like TwitterBot)",
    "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    "LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)",
    "Mozilla/5.0 (Macintosh) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1)",
  ])("%s is a bot or link preview", (ua) => expect(isBotUserAgent(ua)).toBe(true));
  it.each([BROWSER, "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1", null])("%s is a person", (ua) =>
    expect(isBotUserAgent(ua)).toBe(false),
  );
});

async function linkedBusiness(destination = DEST) {
  const b = await domainBusiness({ environment: "LIVE" });
  await updateGeneralConfig(b.businessId, updateGeneralInput.parse({ environment: "LIVE", linkDestinationUrl: destination }));
  const ann = await participant(b.scope, { handle: `ann-${Date.now()}` });
  return { ...b, ann };
}

const visit = (code: string, over: Partial<Parameters<typeof followLink>[0]> = {}) =>
  followLink({ code, method: "GET", query: new URLSearchParams(), userAgent: BROWSER, ip: "203.0.113.7", referer: "https://news.example.org/post/1", ...over });

describe("followLink", () => {
  it("redirects with the code and a click id, records the click off the request, and counts one click per visitor, link and hour", async () => {
    const { businessId, ann } = await linkedBusiness();
    const at = new Date("2026-11-25T10:05:00Z");
    const first = await visit(ann.referralCode, { now: at, query: new URLSearchParams("utm_source=mail&utm_campaign=fall") });
    const u = new URL(first.location);
    expect(u.searchParams.get("ref")).toBe(ann.referralCode);
    expect(u.searchParams.get("rts_click")).toBe(first.clickId);
    expect(bufferedClicks()).toBe(1); // answered before anything was written
    expect(await db.linkClick.count({ where: { businessId } })).toBe(0);
    await visit(ann.referralCode, { now: new Date("2026-11-25T10:40:00Z") }); // same visitor, same hour
    await visit(ann.referralCode, { now: new Date("2026-11-25T11:01:00Z") }); // next hour
    await visit(ann.referralCode.toLowerCase(), { now: at, ip: "198.51.100.9" }); // another visitor, code in lower case
    await visit(ann.referralCode, { now: at, userAgent: "Twitterbot/1.0" }); // a link preview
    await visit(ann.referralCode, { now: at, method: "HEAD" }); // not recorded
    const over = await visit(ann.referralCode, { now: at, ip: "198.51.100.10", record: false }); // an address past its rate: redirected, not recorded
    expect(over.clickId).toBeNull();
    expect(new URL(over.location).searchParams.get("ref")).toBe(ann.referralCode);
    await flushClicks();
    const rows = await db.linkClick.findMany({ where: { businessId }, orderBy: { createdAt: "asc" } });
    expect(rows).toHaveLength(5);
    expect(rows.filter((r) => r.counted)).toHaveLength(3);
    expect(rows.filter((r) => r.bot).map((r) => r.counted)).toEqual([false]);
    const click = rows.find((r) => r.id === first.clickId)!;
    expect(click).toMatchObject({ counted: true, utmSource: "mail", utmCampaign: "fall", refererHost: "news.example.org", participantId: ann.participantId, environment: "LIVE" });
    expect(click.visitorHash).toMatch(/^[0-9a-f]{32}$/);
    // Nothing of the IP address or user agent is stored.
    expect(JSON.stringify(rows)).not.toContain("203.0.113.7");
    expect(JSON.stringify(rows)).not.toContain("Chrome");
    // A second batch never counts the same visitor, link and hour again.
    await visit(ann.referralCode, { now: new Date("2026-11-25T10:59:00Z") });
    await flushClicks();
    expect(await db.linkClick.count({ where: { businessId, counted: true } })).toBe(3);
  });

  it("control characters in utm_* parameters are removed; the click is recorded", async () => {
    const { businessId, ann } = await linkedBusiness();
    const out = await visit(ann.referralCode, { query: new URLSearchParams("utm_source=%00mail%00&utm_medium=%01%7F&utm_campaign=fall%0A") });
    await flushClicks();
    expect(bufferedClicks()).toBe(0);
    expect(await db.linkClick.findUnique({ where: { id: out.clickId! } })).toMatchObject({ businessId, utmSource: "mail", utmMedium: null, utmCampaign: "fall" });
  });

  it("a utm_* value cut at its 200th unit inside an emoji keeps the whole character out: the click is recorded", async () => {
    const { businessId, ann } = await linkedBusiness();
    const out = await visit(ann.referralCode, { query: new URLSearchParams(`utm_campaign=${"a".repeat(199)}%F0%9F%98%80&utm_source=x`) });
    await flushClicks();
    expect(bufferedClicks()).toBe(0);
    expect(await db.linkClick.findUnique({ where: { id: out.clickId! } })).toMatchObject({ businessId, utmCampaign: "a".repeat(199), utmSource: "x" });
  });

  it("a click the database refuses is set aside: the clicks around it are written, nothing stays stuck in the buffer", async () => {
    const { businessId, scope, ann } = await linkedBusiness();
    const environment = scope.environment;
    const click = (id: string, utmSource: string | null) =>
      enqueueClick({ id, businessId, environment, participantId: ann.participantId, code: ann.referralCode, visitorHash: "0".repeat(32), hour: new Date("2026-11-25T10:00:00Z"), refererHost: null, utmSource, utmMedium: null, utmCampaign: null, utmTerm: null, utmContent: null, bot: false, at: new Date("2026-11-25T10:01:00Z") });
    const run = Date.now();
    for (let i = 0; i < 7; i++) click(`good-${run}-${i}`, "ok");
    click(`bad-${run}`, "\u0000"); // NUL: no text column takes it
    for (let i = 7; i < 10; i++) click(`good-${run}-${i}`, "ok");
    await flushClicks();
    expect(bufferedClicks()).toBe(0);
    const ids = (await db.linkClick.findMany({ where: { businessId }, select: { id: true } })).map((r) => r.id);
    expect(ids.filter((id) => id.startsWith(`good-${run}`))).toHaveLength(10);
    expect(ids).not.toContain(`bad-${run}`);
  });

  it("the database refuses a second counted click of a visitor, link and hour", async () => {
    const { businessId, ann } = await linkedBusiness();
    await visit(ann.referralCode);
    await flushClicks();
    const c = (await db.linkClick.findFirst({ where: { businessId } }))!;
    await expect(db.linkClick.create({ data: { ...c, id: `${c.id}x` } })).rejects.toThrow();
  });

  it("handles work as codes; an unknown code answers 404 when no destination can be chosen, a program without destination 404", async () => {
    const { ann } = await linkedBusiness();
    const byHandle = await visit(ann.handle!);
    expect(new URL(byHandle.location).searchParams.get("ref")).toBe(ann.referralCode);
    const none = await domainBusiness({ environment: "LIVE" });
    const bo = await participant(none.scope);
    await expect(visit(bo.referralCode)).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("a code finds its owner however many participants of other businesses have it as their handle", async () => {
    const { ann } = await linkedBusiness();
    // One other business may give the code as a handle (in each environment); further ones are refused.
    const other = await domainBusiness({ environment: "LIVE" });
    await participant(other.scope, { handle: ann.referralCode.toLowerCase() });
    await participant({ ...other.scope, environment: "TEST" }, { handle: ann.referralCode.toLowerCase() });
    const { forgetLinkTargets } = await import("./resolve");
    forgetLinkTargets("");
    const out = await visit(ann.referralCode);
    expect(new URL(out.location).searchParams.get("ref")).toBe(ann.referralCode);
    expect(out.clickId).not.toBeNull();
  });

  it("a handle leads to the business that gave it first: another business giving it later is refused in words, and the database refuses it too; it is freed when no participant has it", async () => {
    const { businessId, ann } = await linkedBusiness();
    const late = await domainBusiness({ environment: "LIVE" });
    await updateGeneralConfig(late.businessId, updateGeneralInput.parse({ environment: "LIVE", linkDestinationUrl: "https://late.example.com/" }));
    // The later business cannot give the handle, neither to a new participant nor to one it has.
    const refused = { code: "CONFLICT", message: expect.stringContaining("another business's /r/ link"), details: [{ path: "handle", message: expect.any(String) }] };
    await expect(participant(late.scope, { handle: ann.handle! })).rejects.toMatchObject(refused);
    const copy = await participant(late.scope, { userId: "late-user" });
    await expect(upsertParticipant(late.scope, { userId: "late-user", handle: ann.handle! })).rejects.toMatchObject(refused);
    expect((await db.participant.findUniqueOrThrow({ where: { id: copy.participantId } })).handle).toBeNull();
    // Written past the service (a race between the check and the write), the database refuses it.
    await expect(db.participant.update({ where: { id: copy.participantId }, data: { handle: ann.handle! } })).rejects.toThrow();
    const { forgetLinkTargets } = await import("./resolve");
    forgetLinkTargets("");
    // The public link stays the first business's.
    const out = await visit(ann.handle!);
    expect(new URL(out.location).host).toBe("shop.example.com");
    expect(new URL(out.location).searchParams.get("ref")).toBe(ann.referralCode);
    expect(await db.linkHandle.findUnique({ where: { handle: ann.handle! } })).toMatchObject({ businessId });
    // Once none of the first business's participants has it (an erasure, a change), the handle is
    // free: the next business to give it takes the link.
    await db.participant.update({ where: { id: ann.participantId }, data: { handle: null } });
    expect(await db.linkHandle.findUnique({ where: { handle: ann.handle! } })).toBeNull();
    await upsertParticipant(late.scope, { userId: "late-user", handle: ann.handle! });
    expect(await db.linkHandle.findUnique({ where: { handle: ann.handle! } })).toMatchObject({ businessId: late.businessId });
  });

  it("an unknown code goes to the only destination of the installation, without attribution", async () => {
    await db.$executeRawUnsafe(`UPDATE "BusinessConfig" SET "linkDestinationUrl" = NULL`);
    await db.$executeRawUnsafe(`UPDATE "EnvironmentConfig" SET "linkDestinationUrl" = NULL`);
    const { forgetLinkTargets } = await import("./resolve");
    await linkedBusiness("https://only.example.com/");
    forgetLinkTargets("");
    const out = await visit("NOSUCH99", { query: new URLSearchParams("utm_source=x") });
    expect(out).toEqual({ location: "https://only.example.com/?utm_source=x", clickId: null });
  });
});
