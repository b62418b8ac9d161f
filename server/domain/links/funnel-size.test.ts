// The funnel's size: utm_source and utm_campaign come from anyone's link clicks, so a funnel by
// them lists at most FUNNEL_MAX_GROUPS groups (the most clicked) and says when there were more.
// (A file of its own: the rollup of past days, which funnel.test.ts's retention sweep moves, is
// shared by the database.)
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { domainBusiness, participant } from "../../../tests/support/domain";
import { FUNNEL_MAX_GROUPS, getFunnel } from "./funnel";
import { funnelInput } from "./schemas";

describe("funnel size", () => {
  it("lists at most FUNNEL_MAX_GROUPS groups, the most clicked, and says when there were more (anyone's clicks name utm values)", async () => {
    const b = await domainBusiness({ environment: "TEST" });
    const ann = await participant(b.scope);
    const at = new Date("2026-10-07T09:00:00Z");
    // Counted clicks as the click writer stores them, one per utm_source; s0 twice.
    const sources = [...Array.from({ length: FUNNEL_MAX_GROUPS + 1 }, (_, i) => `s${i}`), "s0"];
    await db.linkClick.createMany({
      data: sources.map((utmSource, i) => ({ id: `fc-${ann.participantId}-${i}`, businessId: b.businessId, environment: "TEST", participantId: ann.participantId, code: ann.referralCode, visitorHash: `v${i}`, hour: at, utmSource, counted: true, createdAt: at })),
    });
    const q = (groupBy: string) => getFunnel(b.businessId, funnelInput.parse({ environment: "TEST", from: "2026-10-07", to: "2026-10-07", groupBy }));
    const bySource = await q("utm_source");
    expect([bySource.truncated, bySource.data.length]).toEqual([true, FUNNEL_MAX_GROUPS]);
    expect(bySource.data[0]).toMatchObject({ key: "s0", clicks: 2 });
    expect(await q("day")).toMatchObject({ truncated: false, data: [{ key: "2026-10-07", clicks: FUNNEL_MAX_GROUPS + 2 }] });
  });
});
