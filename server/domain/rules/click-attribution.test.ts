// A click names its referrer: two people behind one NAT with one browser build are one "visitor"
// (IP + user agent, hashed per day), so the click id an integration names credits its own link,
// never another click of that visitor; POST /track and POST /sdk/referrals/apply credit alike.
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { domainBusiness, participant, uniqueEmail } from "../../../tests/support/domain";
import { updateGeneralConfig } from "../config/service";
import { updateGeneralInput } from "../config/schemas";
import { flushClicks } from "../links/clicks";
import { followLink } from "../links/redirect";
import { applyReferral } from "../referrals/service";
import { applyReferralInput } from "../referrals/schemas";
import { acceptEvent } from "../tracking/service";

const BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36";
const OFFICE_NAT = "203.0.113.77";

async function office(attribution: "FIRST_CLICK" | "LAST_CLICK") {
  const b = await domainBusiness({ environment: "TEST" });
  await updateGeneralConfig(b.businessId, updateGeneralInput.parse({ environment: "TEST", linkDestinationUrl: "http://localhost:4000/welcome", attribution }));
  const [ann, bo] = await Promise.all([participant(b.scope), participant(b.scope)]);
  /** A click from the office's one address and browser build: every colleague is the same visitor. */
  const click = async (code: string, at: Date) => {
    const { clickId } = await followLink({ code, method: "GET", query: new URLSearchParams(), userAgent: BROWSER, ip: OFFICE_NAT, referer: null, now: at });
    await flushClicks();
    return clickId!;
  };
  const referralOf = (referralId: string) => db.referral.findUniqueOrThrow({ where: { id: referralId }, include: { click: true } });
  return { ...b, ann, bo, click, referralOf };
}

describe("a click names its referrer", () => {
  it.each(["LAST_CLICK", "FIRST_CLICK"] as const)("%s: an apply naming the customer's click credits that link, not a colleague's click on the same network", async (attribution) => {
    const o = await office(attribution);
    const t0 = Date.now() - 120_000;
    // LAST_CLICK: the colleague clicks Bo's link after the customer; FIRST_CLICK: before.
    const colleagueAt = new Date(attribution === "LAST_CLICK" ? t0 + 30_000 : t0 - 30_000);
    const customer = await o.click(o.ann.referralCode, new Date(t0));
    await o.click(o.bo.referralCode, colleagueAt);
    const r = await applyReferral(o.scope, applyReferralInput.parse({ referralCode: o.ann.referralCode, referredUserId: `u-${attribution}`, clickId: customer }));
    const row = await o.referralOf((r.body as { referralId: string }).referralId);
    expect(row.referrerId).toBe(o.ann.participantId);
    expect(row.click?.clickId).toBe(customer);
  });

  it("POST /track naming the click credits the same referrer as the apply, whatever code the form sent", async () => {
    const o = await office("LAST_CLICK");
    const t0 = Date.now() - 120_000;
    const customer = await o.click(o.ann.referralCode, new Date(t0));
    await o.click(o.bo.referralCode, new Date(t0 + 30_000));
    const applied = await applyReferral(o.scope, applyReferralInput.parse({ referralCode: o.bo.referralCode, referredUserId: "by-apply", clickId: customer }));
    const tracked = await acceptEvent(o.scope, { eventName: "signup", referrer: o.bo.referralCode, clickId: customer, metadata: { referredUserEmail: uniqueEmail("by-track") } }, { mode: "SYNC" });
    expect(tracked.status, JSON.stringify(tracked.body)).toBe(200);
    const byApply = await o.referralOf((applied.body as { referralId: string }).referralId);
    const byTrack = await o.referralOf((tracked.body as { referralId: string }).referralId);
    expect([byApply.referrerId, byTrack.referrerId]).toEqual([o.ann.participantId, o.ann.participantId]);
    expect([byApply.click?.clickId, byTrack.click?.clickId]).toEqual([customer, customer]);
  });
});
