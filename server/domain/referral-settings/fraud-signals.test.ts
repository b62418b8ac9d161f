// Fraud signals: each firing, and none firing on a clean path; pure verdicts first, then through
// applyReferral with real clicks and wallets.
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { domainBusiness, participant } from "../../../tests/support/domain";
import { updateGeneralConfig } from "../config/service";
import { updateGeneralInput } from "../config/schemas";
import { flushClicks } from "../links/clicks";
import { followLink } from "../links/redirect";
import { createPortalSession } from "../portal/sessions";
import { createPortalSessionInput } from "../portal/schemas";
import { openPortal } from "../../portal/open";
import { CLIENT_IP_HEADER } from "../../shared/client-ip";
import { getFunnel } from "../links/funnel";
import { funnelInput } from "../links/schemas";
import { applyReferral } from "../referrals/service";
import { acceptEvent } from "../tracking/service";
import { applyReferralInput } from "../referrals/schemas";
import { getReferralSettings, updateReferralSettings } from "./service";
import { updateReferralSettingsInput } from "./schemas";
import { evaluateSignals, type SignalFacts, type SignalRules } from "./fraud-signals";

const ALL_FLAG: SignalRules = { SAME_VISITOR: "FLAG", CLICK_VELOCITY: "FLAG", WALLET_SHARED: "FLAG", NO_CLICK: "FLAG" };
const clean: SignalFacts = { click: { visitorHash: "v1" }, referrerVisitors: new Set(["v0"]), visitorClicksThisHour: 1, walletShared: false };

describe("evaluateSignals (pure)", () => {
  it("a clean referral fires nothing, even with every rule on", () => {
    expect(evaluateSignals(ALL_FLAG, 20, clean)).toBeNull();
  });
  it.each([
    ["SAME_VISITOR", { referrerVisitors: new Set(["v1"]) }],
    ["CLICK_VELOCITY", { visitorClicksThisHour: 21 }],
    ["WALLET_SHARED", { walletShared: true }],
    ["NO_CLICK", { click: null }],
  ] as const)("%s fires on its fact, and only when its rule is on", (signal, over) => {
    const facts = { ...clean, ...over } as SignalFacts;
    expect(evaluateSignals(ALL_FLAG, 20, facts)).toEqual({ status: "FLAGGED", reason: signal });
    expect(evaluateSignals({ ...ALL_FLAG, [signal]: "REJECT" }, 20, facts)).toEqual({ status: "REJECTED", reason: signal });
    expect(evaluateSignals({ ...ALL_FLAG, [signal]: "OFF" }, 20, facts)).toBeNull();
  });
  it("CLICK_VELOCITY fires above the limit, not at it", () => {
    expect(evaluateSignals(ALL_FLAG, 20, { ...clean, visitorClicksThisHour: 20 })).toBeNull();
  });
  it("several signals: every one named, REJECT wins", () => {
    const v = evaluateSignals({ ...ALL_FLAG, WALLET_SHARED: "REJECT" }, 20, { ...clean, walletShared: true, visitorClicksThisHour: 99 });
    expect(v).toEqual({ status: "REJECTED", reason: "CLICK_VELOCITY,WALLET_SHARED" });
  });
});

const BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36";

async function program(signals: Record<string, string>, extra: Record<string, unknown> = {}) {
  const b = await domainBusiness({ environment: "TEST" });
  await updateGeneralConfig(b.businessId, updateGeneralInput.parse({ environment: "TEST", linkDestinationUrl: "http://localhost:4000/welcome" }));
  await updateReferralSettings(b.businessId, updateReferralSettingsInput.parse({ signals, ...extra }));
  const click = async (code: string, ip: string, at?: Date) => {
    const { clickId } = await followLink({ code, method: "GET", query: new URLSearchParams(), userAgent: BROWSER, ip, referer: null, now: at });
    await flushClicks();
    return clickId!;
  };
  const apply = async (referralCode: string, clickId?: string) =>
    (await applyReferral(b.scope, applyReferralInput.parse({ referralCode, referredUserId: `u-${Math.random()}`, ...(clickId ? { clickId } : {}) }))).body as { status: string; reason: string | null; referralId: string };
  return { ...b, click, apply };
}

describe("fraud signals through applyReferral", () => {
  it("settings: off by default, set per signal in any case, answered in upper case", async () => {
    const b = await domainBusiness();
    expect((await getReferralSettings(b.businessId)).signals).toEqual({ SAME_VISITOR: "OFF", CLICK_VELOCITY: "OFF", WALLET_SHARED: "OFF", NO_CLICK: "OFF" });
    await updateReferralSettings(b.businessId, updateReferralSettingsInput.parse({ signals: { NO_CLICK: "flag" }, clickVelocityPerHour: 5 }));
    const s = await getReferralSettings(b.businessId);
    expect(s.signals.NO_CLICK).toBe("FLAG");
    expect(s.clickVelocityPerHour).toBe(5);
    expect(() => updateReferralSettingsInput.parse({ signals: { NO_CLICK: "maybe" } })).toThrow();
    expect(() => updateReferralSettingsInput.parse({ signals: { OTHER: "FLAG" } })).toThrow();
  });

  it("SAME_VISITOR: a second friend from the referrer's first friend's machine is rejected; a friend from another machine is not", async () => {
    const p = await program({ SAME_VISITOR: "REJECT" });
    const ann = await participant(p.scope);
    const first = await p.apply(ann.referralCode, await p.click(ann.referralCode, "203.0.113.1"));
    expect(first.status).toBe("PENDING");
    const other = await p.apply(ann.referralCode, await p.click(ann.referralCode, "203.0.113.2"));
    expect(other.status).toBe("PENDING");
    const again = await p.apply(ann.referralCode, await p.click(ann.referralCode, "203.0.113.1"));
    expect(again).toMatchObject({ status: "REJECTED", reason: "SAME_VISITOR" });
  });

  it("SAME_VISITOR: a friend signing up from the device that opened the referrer's own portal is flagged; from another device, not", async () => {
    const p = await program({ SAME_VISITOR: "FLAG" });
    const ann = await participant(p.scope);
    const s = await createPortalSession(p.scope, createPortalSessionInput.parse({ participantId: ann.participantId }));
    const opened = await openPortal(new Request(s.url, { headers: { "user-agent": BROWSER, [CLIENT_IP_HEADER]: "203.0.113.50" } }));
    expect(opened.status).toBe(303);
    expect((await p.apply(ann.referralCode, await p.click(ann.referralCode, "203.0.113.51"))).status).toBe("PENDING");
    expect(await p.apply(ann.referralCode, await p.click(ann.referralCode, "203.0.113.50"))).toMatchObject({ status: "FLAGGED", reason: "SAME_VISITOR" });
  });

  it("CLICK_VELOCITY: a visitor over the hourly limit is flagged; under it, not", async () => {
    const p = await program({ CLICK_VELOCITY: "FLAG" }, { clickVelocityPerHour: 2 });
    const people = await Promise.all([1, 2, 3].map(() => participant(p.scope)));
    const at = new Date();
    const calm = await p.click(people[0].referralCode, "198.51.100.1", at);
    expect((await p.apply(people[0].referralCode, calm)).status).toBe("PENDING");
    let last = "";
    for (const who of people) last = await p.click(who.referralCode, "198.51.100.2", at);
    expect(await p.apply(people[2].referralCode, last)).toMatchObject({ status: "FLAGGED", reason: "CLICK_VELOCITY" });
  });

  it("WALLET_SHARED: a referrer whose wallet another participant uses is flagged; a wallet of their own is not", async () => {
    const p = await program({ WALLET_SHARED: "FLAG" });
    const wallet = "0x1000000000000000000000000000000000000aa1";
    const ann = await participant(p.scope, { walletAddress: wallet });
    expect((await p.apply(ann.referralCode, await p.click(ann.referralCode, "192.0.2.1"))).status).toBe("PENDING");
    await participant(p.scope, { walletAddress: wallet });
    expect(await p.apply(ann.referralCode, await p.click(ann.referralCode, "192.0.2.2"))).toMatchObject({ status: "FLAGGED", reason: "WALLET_SHARED" });
  });

  it("NO_CLICK: a referral without a click is flagged; with a click, not", async () => {
    const p = await program({ NO_CLICK: "FLAG" });
    const ann = await participant(p.scope);
    expect(await p.apply(ann.referralCode)).toMatchObject({ status: "FLAGGED", reason: "NO_CLICK" });
    expect(await p.apply(ann.referralCode, "unknownclick1")).toMatchObject({ status: "FLAGGED", reason: "NO_CLICK" });
    expect((await p.apply(ann.referralCode, await p.click(ann.referralCode, "192.0.2.9"))).status).toBe("PENDING");
  });

  it("the funnel counts the referrals each signal flagged or rejected", async () => {
    const p = await program({ NO_CLICK: "FLAG", SAME_VISITOR: "REJECT" });
    const ann = await participant(p.scope);
    await p.apply(ann.referralCode); // NO_CLICK
    await p.apply(ann.referralCode); // NO_CLICK
    await p.apply(ann.referralCode, await p.click(ann.referralCode, "192.0.2.77")); // clean
    await p.apply(ann.referralCode, await p.click(ann.referralCode, "192.0.2.77")); // SAME_VISITOR
    const f = await getFunnel(p.businessId, funnelInput.parse({ environment: "TEST" }));
    expect(f.signals).toEqual({ SAME_VISITOR: 1, CLICK_VELOCITY: 0, WALLET_SHARED: 0, NO_CLICK: 2 });
  });

  it("with every rule off a suspicious referral goes through, and existing rules still apply", async () => {
    const p = await program({}, { holdForReview: true });
    const ann = await participant(p.scope, { walletAddress: "0x2000000000000000000000000000000000000bb2" });
    await participant(p.scope, { walletAddress: "0x2000000000000000000000000000000000000bb2" });
    expect(await p.apply(ann.referralCode)).toMatchObject({ status: "FLAGGED", reason: "HELD_FOR_REVIEW" });
  });
});

describe("attribution (a click names its own link: rules/click-attribution.test.ts)", () => {
  it("LAST_CLICK: a click made after the sign-up (someone else's link, same visitor hash) never takes the referral", async () => {
    const p = await program({});
    const [ann, mallory] = await Promise.all([participant(p.scope), participant(p.scope)]);
    const onAnn = await p.click(ann.referralCode, "203.0.113.60", new Date(Date.now() - 60_000));
    // Made after the referred user applied (a clock a minute ahead stands for "later"): not a click that led to the sign-up.
    await p.click(mallory.referralCode, "203.0.113.60", new Date(Date.now() + 60_000));
    const r = await p.apply(ann.referralCode, onAnn);
    const row = await db.referral.findUniqueOrThrow({ where: { id: r.referralId }, include: { click: true } });
    expect(row.referrerId).toBe(ann.participantId);
    expect(row.click?.clickId).toBe(onAnn);
  });

  it("an unknown click id leaves the code in charge and links nothing", async () => {
    const p = await program({});
    const ann = await participant(p.scope);
    const r = await p.apply(ann.referralCode, "nosuchclick");
    const row = await db.referral.findUniqueOrThrow({ where: { id: r.referralId }, include: { click: true } });
    expect(row.referrerId).toBe(ann.participantId);
    expect(row.click).toBeNull();
  });

  it("POST /track: the event's clickId links its referral; NO_CLICK screens a referral made by an event without one", async () => {
    const p = await program({ NO_CLICK: "FLAG" });
    const ann = await participant(p.scope);
    const clickId = await p.click(ann.referralCode, "192.0.2.77");
    const withClick = (await acceptEvent(p.scope, { eventName: "signup", referrer: ann.referralCode, clickId, metadata: { referredUserId: "t-1" } })).body as { referralId: string };
    const row = await db.referral.findUniqueOrThrow({ where: { id: withClick.referralId }, include: { click: true } });
    expect(row.reason).toBeNull(); // not flagged (the event itself qualifies it)
    expect(row.click?.clickId).toBe(clickId);
    expect((await db.trackedEvent.findFirstOrThrow({ where: { referralId: row.id } })).clickId).toBe(clickId);
    const without = (await acceptEvent(p.scope, { eventName: "signup", referrer: ann.referralCode, metadata: { referredUserId: "t-2" } })).body as { referralId: string };
    expect(await db.referral.findUniqueOrThrow({ where: { id: without.referralId } })).toMatchObject({ status: "FLAGGED", reason: "NO_CLICK" });
  });
});
