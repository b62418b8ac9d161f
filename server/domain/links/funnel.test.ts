// The funnel from clicks to ETH, grouped four ways, read from raw clicks and from daily rollups
// alike; click retention keeps the rollups.
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { domainBusiness, participant } from "../../../tests/support/domain";
import { updateGeneralConfig } from "../config/service";
import { updateGeneralInput } from "../config/schemas";
import { sweepRetention } from "../../jobs/retention";
import { applyReferral } from "../referrals/service";
import { applyReferralInput } from "../referrals/schemas";
import { flushClicks } from "./clicks";
import { getFunnel, getParticipantClicks } from "./funnel";
import { followLink } from "./redirect";
import { funnelInput } from "./schemas";

const UA = "Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0";

describe("getFunnel", () => {
  it("counts clicks, unique visitors, referrals and their outcome per referrer, campaign, utm_source and day, before and after the rollup and retention", async () => {
    const b = await domainBusiness({ environment: "TEST" });
    await updateGeneralConfig(b.businessId, updateGeneralInput.parse({ environment: "TEST", linkDestinationUrl: "http://localhost:4000/" }));
    const [ann, bo] = await Promise.all([participant(b.scope, { name: "Ann" }), participant(b.scope)]);
    const day1 = new Date("2026-10-01T09:00:00Z");
    const click = async (code: string, ip: string, query: string, at: Date) =>
      (await followLink({ code, method: "GET", query: new URLSearchParams(query), userAgent: UA, ip, referer: null, now: at })).clickId!;
    const a1 = await click(ann.referralCode, "10.0.0.1", "utm_source=mail&utm_campaign=fall", day1);
    await click(ann.referralCode, "10.0.0.1", "utm_source=mail&utm_campaign=fall", new Date(day1.getTime() + 2 * 3_600_000)); // next hour: counted, same visitor
    await click(ann.referralCode, "10.0.0.2", "utm_source=x", day1);
    await click(bo.referralCode, "10.0.0.3", "", day1);
    await click(bo.referralCode, "10.0.0.3", "", day1); // same hour: not counted
    await flushClicks();
    const r = await applyReferral(b.scope, applyReferralInput.parse({ referralCode: ann.referralCode, referredUserId: "friend-1", clickId: a1 }));
    await db.referral.update({ where: { id: (r.body as { referralId: string }).referralId }, data: { createdAt: day1 } });
    const q = (groupBy: string) => getFunnel(b.businessId, funnelInput.parse({ environment: "TEST", from: "2026-09-30", to: "2026-10-02", groupBy }));

    const check = async () => {
      const byReferrer = await q("referrer");
      expect(byReferrer.data).toEqual([
        { key: ann.referralCode, participantId: ann.participantId, name: "Ann", clicks: 3, uniqueClicks: 2, referrals: 1, qualified: 0, rewarded: 0, rewardsEth: "0", paidOutEth: "0" },
        { key: bo.referralCode, participantId: bo.participantId, name: null, clicks: 1, uniqueClicks: 1, referrals: 0, qualified: 0, rewarded: 0, rewardsEth: "0", paidOutEth: "0" },
      ]);
      const byCampaign = await q("campaign");
      expect(byCampaign.data.find((d) => d.key === "fall")).toMatchObject({ clicks: 2, uniqueClicks: 1, referrals: 1 });
      expect(byCampaign.data.find((d) => d.key === null)).toMatchObject({ clicks: 2, referrals: 0 });
      const bySource = await q("utm_source");
      expect(bySource.data.find((d) => d.key === "mail")).toMatchObject({ clicks: 2, referrals: 1 });
      const byDay = await q("day");
      expect(byDay.data).toEqual([expect.objectContaining({ key: "2026-10-01", clicks: 4, referrals: 1 })]);
    };
    await check();
    // Over four months: the days' rows now, the aligned blocks of closed days after the rollup.
    const wide = async () =>
      Promise.all(
        ["referrer", "campaign", "utm_source"].map(async (groupBy) =>
          (await getFunnel(b.businessId, funnelInput.parse({ environment: "TEST", from: "2026-08-03", to: "2026-11-29", groupBy }))).data
            .filter((d) => d.clicks)
            .map(({ key, clicks, uniqueClicks }) => ({ key, clicks, uniqueClicks }))
            .sort((x, y) => String(x.key).localeCompare(String(y.key))), // referrals (gone with their clicks) also order the rows
        ),
      );
    const wideBefore = await wide();
    expect(wideBefore[0]).toEqual(
      [
        { key: ann.referralCode, clicks: 3, uniqueClicks: 2 },
        { key: bo.referralCode, clicks: 1, uniqueClicks: 1 },
      ].sort((x, y) => x.key.localeCompare(y.key)),
    );
    // Rollup of the closed days, then the raw clicks expire: the same figures, from the rollups.
    const swept = await sweepRetention({ now: new Date("2026-12-31T00:00:00Z"), clickRetentionDays: 30 });
    expect(swept.clicksDeleted).toBe(5);
    expect(await db.linkClick.count({ where: { businessId: b.businessId } })).toBe(0);
    // utm_source and campaign of a referral came from its click: gone with it; clicks stay.
    const byReferrer = await q("referrer");
    expect(byReferrer.data[0]).toMatchObject({ key: ann.referralCode, clicks: 3, uniqueClicks: 2, referrals: 1 });
    expect((await q("campaign")).data.find((d) => d.key === "fall")).toMatchObject({ clicks: 2, referrals: 0 });
    expect((await q("day")).data).toEqual([expect.objectContaining({ key: "2026-10-01", clicks: 4 })]);
    expect((await getParticipantClicks(b.businessId, "TEST", ann.participantId)).clicks).toBe(3);
    expect(await wide()).toEqual(wideBefore);
    // A click that arrives for a day already rolled up is left out, as the rollup left it out.
    await click(bo.referralCode, "10.0.0.9", "", new Date(day1.getTime() + 3_600_000));
    await flushClicks();
    expect((await q("day")).data).toEqual([expect.objectContaining({ key: "2026-10-01", clicks: 4, uniqueClicks: 3 })]);
  });

  it("counts an open day as its click batches arrive: a visitor once per group and day across batches and links, a removed participant's clicks taken out", async () => {
    const b = await domainBusiness({ environment: "TEST" });
    await updateGeneralConfig(b.businessId, updateGeneralInput.parse({ environment: "TEST", linkDestinationUrl: "http://localhost:4000/" }));
    const [ann, bo] = await Promise.all([participant(b.scope), participant(b.scope)]);
    const at = (h: number) => new Date(Date.UTC(2027, 2, 5, h, 15)); // after the days the test above rolled up
    const click = (code: string, ip: string, query: string, h: number) =>
      followLink({ code, method: "GET", query: new URLSearchParams(query), userAgent: UA, ip, referer: null, now: at(h) });
    await click(ann.referralCode, "10.0.1.1", "utm_campaign=fall&utm_source=mail", 9);
    await flushClicks();
    await click(ann.referralCode, "10.0.1.1", "utm_campaign=fall&utm_source=mail", 10); // next batch, next hour: a click, not a new visitor
    await click(ann.referralCode, "10.0.1.2", "", 9);
    await click(bo.referralCode, "10.0.1.1", "", 11); // the same visitor on another link
    await flushClicks();
    const q = async (groupBy: string) => (await getFunnel(b.businessId, funnelInput.parse({ environment: "TEST", from: "2027-03-05", to: "2027-03-05", groupBy }))).data;
    const pick = (rows: { key: string | null; clicks: number; uniqueClicks: number }[]) => rows.map(({ key, clicks, uniqueClicks }) => ({ key, clicks, uniqueClicks }));

    expect(pick(await q("referrer"))).toEqual([
      { key: ann.referralCode, clicks: 3, uniqueClicks: 2 },
      { key: bo.referralCode, clicks: 1, uniqueClicks: 1 },
    ]);
    expect(pick(await q("campaign"))).toEqual([
      { key: null, clicks: 2, uniqueClicks: 2 },
      { key: "fall", clicks: 2, uniqueClicks: 1 },
    ]);
    expect(pick(await q("utm_source"))).toEqual([
      { key: null, clicks: 2, uniqueClicks: 2 },
      { key: "mail", clicks: 2, uniqueClicks: 1 },
    ]);
    expect(pick(await q("day"))).toEqual([{ key: "2027-03-05", clicks: 4, uniqueClicks: 2 }]);

    // Bo removed (his clicks go with him): the open day is counted again without them.
    await db.participant.delete({ where: { id: bo.participantId } });
    expect(pick(await q("day"))).toEqual([{ key: "2027-03-05", clicks: 3, uniqueClicks: 2 }]);
    expect(pick(await q("campaign"))).toEqual([
      { key: "fall", clicks: 2, uniqueClicks: 1 },
      { key: null, clicks: 1, uniqueClicks: 1 },
    ]);
  });

  it("refuses an unknown groupBy and a reversed range", async () => {
    expect(() => funnelInput.parse({ groupBy: "country" })).toThrow();
    const b = await domainBusiness();
    await expect(getFunnel(b.businessId, funnelInput.parse({ from: "2026-10-02", to: "2026-10-01" }))).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
  });
});
