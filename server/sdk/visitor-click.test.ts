// The visitor is only a fallback: an apply or an event that names no click id is credited by its
// request's visitor's first (FIRST_CLICK) or last (LAST_CLICK) click of the day, through the very
// SDK route functions app/ mounts; a named click id credits its own link, a named code is never
// overridden by the visitor's click of another referrer, and /track decides as the apply does.
process.env.RATE_LIMIT_PER_SECOND = "100000";
process.env.RATE_LIMIT_BURST = "200000";
import { describe, expect, it } from "vitest";
import { db } from "../db/client";
import { domainBusiness, participant, uniqueEmail } from "../../tests/support/domain";
import { createApiKey } from "../domain/api-keys/service";
import { updateGeneralInput } from "../domain/config/schemas";
import { updateGeneralConfig } from "../domain/config/service";
import { flushClicks } from "../domain/links/clicks";
import { followLink } from "../domain/links/redirect";
import { CLIENT_IP_HEADER } from "../shared/client-ip";
import * as apply from "./routes/referrals-apply";
import * as track from "./routes/track";
import * as trackBatch from "./routes/track-batch";

const BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36";
const HOME = "198.51.100.23";

type Answer = { referralId?: string; jobId?: string; eventId?: string; results?: Answer[]; error?: { code: string } };

async function shop(attribution: "FIRST_CLICK" | "LAST_CLICK", eventProcessing: "SYNC" | "ASYNC" = "SYNC") {
  const b = await domainBusiness({ general: { eventProcessing } });
  await updateGeneralConfig(b.businessId, updateGeneralInput.parse({ environment: "TEST", linkDestinationUrl: "http://localhost:4000/welcome", attribution }));
  const { secret } = await createApiKey(b.businessId, { environment: "TEST", name: "server" });
  const [ann, bo] = await Promise.all([participant(b.scope), participant(b.scope)]);
  /** A click of the customer's browser on `code`'s link, `agoMs` before now. */
  const click = async (code: string, agoMs: number) => {
    const { clickId } = await followLink({ code, method: "GET", query: new URLSearchParams(), userAgent: BROWSER, ip: HOME, referer: null, now: new Date(Date.now() - agoMs) });
    await flushClicks();
    return clickId!;
  };
  /** A request from the customer's browser (the address as the server stamps it), or another client's. */
  const call = async (fn: (r: Request) => Promise<Response>, path: string, body: unknown, userAgent = BROWSER) => {
    const res = await fn(
      new Request(`http://127.0.0.1${path}`, {
        method: "POST",
        headers: { "x-api-key": secret, "content-type": "application/json", "user-agent": userAgent, [CLIENT_IP_HEADER]: HOME },
        body: JSON.stringify(body),
      }),
    );
    return { status: res.status, body: (await res.json()) as Answer };
  };
  const referral = (referralId: string | undefined) => db.referral.findUniqueOrThrow({ where: { id: referralId }, include: { click: true } });
  return { ...b, ann, bo, click, call, referral };
}

describe("no click id named: the visitor's click per attribution", () => {
  it.each([
    ["FIRST_CLICK", "ann"],
    ["LAST_CLICK", "bo"],
  ] as const)("%s: a sign-up without a code or click, by /track and /track/batch, credits the %s link", async (attribution, who) => {
    const s = await shop(attribution);
    const annClick = await s.click(s.ann.referralCode, 120_000);
    const boClick = await s.click(s.bo.referralCode, 60_000);
    const [expected, expectedClick] = who === "ann" ? [s.ann.participantId, annClick] : [s.bo.participantId, boClick];

    const one = await s.call(track.POST, "/track", { eventName: "signup", metadata: { referredUserEmail: uniqueEmail("one") } });
    expect(one.status, JSON.stringify(one.body)).toBe(200);
    const batch = await s.call(trackBatch.POST, "/track/batch", { events: [{ eventName: "signup", metadata: { referredUserEmail: uniqueEmail("batch") } }] });
    expect(batch.status, JSON.stringify(batch.body)).toBe(200);
    for (const id of [one.body.referralId, batch.body.results?.[0]?.referralId]) {
      const r = await s.referral(id);
      expect([r.referrerId, r.click?.clickId]).toEqual([expected, expectedClick]);
    }
  });

  it("a queued event stores the visitor's click as a named one", async () => {
    const s = await shop("LAST_CLICK", "ASYNC");
    await s.click(s.ann.referralCode, 120_000);
    const boClick = await s.click(s.bo.referralCode, 60_000);
    const queued = await s.call(track.POST, "/track", { eventName: "signup", metadata: { referredUserEmail: uniqueEmail("queued") } });
    expect(queued.status, JSON.stringify(queued.body)).toBe(202);
    const event = await db.trackedEvent.findUniqueOrThrow({ where: { id: queued.body.eventId } });
    expect(event.clickId).toBe(boClick);
  });

  it("a named code is never overridden by the visitor's click of another referrer; apply and /track decide alike", async () => {
    const s = await shop("LAST_CLICK");
    const annClick = await s.click(s.ann.referralCode, 120_000);
    await s.click(s.bo.referralCode, 60_000);
    const applied = await s.call(apply.POST, "/sdk/referrals/apply", { referralCode: s.ann.referralCode, referredUserId: "by-apply" });
    const tracked = await s.call(track.POST, "/track", { eventName: "signup", referrer: s.ann.referralCode, metadata: { referredUserEmail: uniqueEmail("by-track") } });
    expect([applied.status, tracked.status], JSON.stringify([applied.body, tracked.body])).toEqual([200, 200]);
    const byApply = await s.referral(applied.body.referralId);
    const byTrack = await s.referral(tracked.body.referralId);
    // Ann's code is kept, with the visitor's click on Ann's own link (Bo's later click is not hers).
    expect([byApply.referrerId, byApply.click?.clickId]).toEqual([s.ann.participantId, annClick]);
    expect([byTrack.referrerId, byTrack.click?.clickId]).toEqual([s.ann.participantId, annClick]);
  });

  it("a named code whose link the visitor never clicked keeps the code, with no click", async () => {
    const s = await shop("LAST_CLICK");
    await s.click(s.bo.referralCode, 60_000);
    const applied = await s.call(apply.POST, "/sdk/referrals/apply", { referralCode: s.ann.referralCode, referredUserId: "no-click" });
    const r = await s.referral(applied.body.referralId);
    expect([r.referrerId, r.click]).toEqual([s.ann.participantId, null]);
  });

  it("a named click id still credits its own link, whatever the visitor clicked later", async () => {
    const s = await shop("LAST_CLICK");
    const annClick = await s.click(s.ann.referralCode, 120_000);
    await s.click(s.bo.referralCode, 60_000);
    const tracked = await s.call(track.POST, "/track", { eventName: "signup", clickId: annClick, metadata: { referredUserEmail: uniqueEmail("named") } });
    const applied = await s.call(apply.POST, "/sdk/referrals/apply", { referralCode: s.bo.referralCode, referredUserId: "named", clickId: annClick });
    for (const id of [tracked.body.referralId, applied.body.referralId]) {
      const r = await s.referral(id);
      expect([r.referrerId, r.click?.clickId]).toEqual([s.ann.participantId, annClick]);
    }
  });

  it("an event of a customer someone already referred stays with that referral, whatever link the visitor clicked", async () => {
    const s = await shop("LAST_CLICK");
    const applied = await s.call(apply.POST, "/sdk/referrals/apply", { referralCode: s.ann.referralCode, referredUserId: "kept" });
    await s.click(s.bo.referralCode, 60_000);
    const tracked = await s.call(track.POST, "/track", { eventName: "signup", metadata: { referredUserId: "kept" } });
    expect(tracked.status, JSON.stringify(tracked.body)).toBe(200);
    expect(tracked.body.referralId).toBe(applied.body.referralId);
  });

  it("a call from a server (not a browser's user agent) is nobody's visitor: no click is looked up", async () => {
    const s = await shop("LAST_CLICK");
    await s.click(s.bo.referralCode, 60_000);
    const tracked = await s.call(track.POST, "/track", { eventName: "signup", metadata: { referredUserEmail: uniqueEmail("backend") } }, "node");
    expect(tracked.status, JSON.stringify(tracked.body)).toBe(200);
    expect(tracked.body.referralId ?? null, JSON.stringify(tracked.body)).toBeNull();
  });
});
