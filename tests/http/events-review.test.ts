// Business events over real HTTP: list filters and cursor, manual create through the /track
// pipeline, who may review a FLAGGED event and the answers (200, 422 INVALID_TRANSITION, 400, 404).
// The review logic itself (exactly once under concurrency, rejection) is in the unit layer:
// server/domain/events/review.test.ts.
import { describe, expect, it } from "vitest";
import { signUp } from "../support/http";
import { addMember, balanceEth, participant, rewardsBusiness, trackReferral } from "./rewards-helpers";

async function flaggedBusiness() {
  const b = await rewardsBusiness({ referralRewardEth: "0.01", bonusEth: "0.005", fundEth: "1" });
  const s = await b.owner.call("PATCH", "/business/referrals/settings", { holdForReview: true });
  expect(s.status).toBe(200);
  return b;
}

describe("review of FLAGGED events", () => {
  it("holdForReview → FLAGGED with HELD rewards; a member approves → PAID once; again → 422 INVALID_TRANSITION", async () => {
    const { owner, secret } = await flaggedBusiness();
    const alice = await participant(secret);
    const t = await trackReferral(secret, alice.referralCode);
    expect(t.body).toMatchObject({ status: "FLAGGED", reason: "HELD_FOR_REVIEW" });
    expect(t.body.rewards.map((r: any) => r.status)).toEqual(["HELD", "HELD"]);
    expect(await balanceEth(owner)).toBe("1");

    const flagged = await owner.call("GET", "/business/events?environment=TEST&status=FLAGGED");
    expect(flagged.body.data.map((e: any) => e.eventId)).toEqual([t.body.eventId]);

    const member = await addMember(owner);
    const ok = await member.call("PATCH", `/business/events/${t.body.eventId}/status`, { status: "PROCESSED" });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.status).toBe("PROCESSED");
    expect(ok.body.rewards.map((r: any) => [r.kind, r.status, r.amountEth])).toEqual([
      ["REFERRAL", "PAID", "0.01"],
      ["BONUS", "PAID", "0.005"],
    ]);
    expect(await balanceEth(owner)).toBe("0.985");
    const again = await owner.call("PATCH", `/business/events/${t.body.eventId}/status`, { status: "PROCESSED" });
    expect(again.status).toBe(422);
    expect(again.body.error).toMatchObject({ code: "INVALID_TRANSITION", details: { from: "PROCESSED", to: "PROCESSED" } });
    expect(await balanceEth(owner)).toBe("0.985");
  });

  it("a PROCESSED event cannot be re-reviewed; bad status 400; another business's event 404", async () => {
    const { owner, secret } = await rewardsBusiness({ fundEth: "1" });
    const t = await trackReferral(secret, (await participant(secret)).referralCode);
    expect(t.body.status).toBe("PROCESSED");
    expect((await owner.call("PATCH", `/business/events/${t.body.eventId}/status`, { status: "REJECTED" })).status).toBe(422);
    expect((await owner.call("PATCH", `/business/events/${t.body.eventId}/status`, { status: "DONE" })).status).toBe(400);
    const other = await signUp();
    for (const [m, path, body] of [
      ["PATCH", `/business/events/${t.body.eventId}/status`, { status: "PROCESSED" }],
      ["GET", `/business/events/${t.body.eventId}`, undefined],
    ] as const) {
      const r = await other.call(m, path, body);
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe("NOT_FOUND");
    }
  });
});

describe("GET/POST /business/events", () => {
  it("manual create runs the /track pipeline; list filters by name, status, date and environment with a cursor", async () => {
    const { owner, secret } = await rewardsBusiness({ referralRewardEth: "0.01", fundEth: "1" });
    const alice = await participant(secret);
    const manual = await owner.call("POST", "/business/events", {
      environment: "TEST",
      eventName: "purchase",
      referrer: alice.referralCode,
      metadata: { referredUserEmail: "manual-buyer@example.com", campaign: "spring" },
    });
    expect(manual.status, JSON.stringify(manual.body)).toBe(200);
    expect(manual.body).toMatchObject({ success: true, processedSynchronously: true, status: "PROCESSED" });
    expect(manual.body.rewards[0]).toMatchObject({ participantId: alice.participantId, status: "PAID" });
    expect(await balanceEth(owner)).toBe("0.99");
    const unknown = await owner.call("POST", "/business/events", { environment: "TEST", eventName: "purchase", referrer: "NO-SUCH-CODE" });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.code).toBe("UNKNOWN_REFERRAL_CODE");
    expect((await owner.call("POST", "/business/events", { environment: "TEST" })).status).toBe(400);

    for (let i = 0; i < 4; i++) await owner.call("POST", "/business/events", { environment: "TEST", eventName: `view` });
    await owner.call("POST", "/business/events", { eventName: "live-only" });

    const all: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await owner.call("GET", `/business/events?environment=TEST&limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      all.push(...page.body.data.map((e: any) => e.eventName));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(all).toEqual(["view", "view", "view", "view", "purchase"]);
    expect((await owner.call("GET", "/business/events?environment=TEST&eventName=purchase")).body.data).toHaveLength(1);
    expect((await owner.call("GET", "/business/events?environment=TEST&campaign=spring")).body.data[0].metadata.campaign).toBe("spring");
    expect((await owner.call("GET", "/business/events")).body.data.map((e: any) => e.eventName)).toEqual(["live-only"]);
    expect((await owner.call("GET", "/business/events?environment=TEST&from=2999-01-01")).body.data).toEqual([]);
    expect((await owner.call("GET", "/business/events?environment=TEST&to=2000-01-01")).body.data).toEqual([]);
    expect((await owner.call("GET", "/business/events?environment=TEST&from=yesterday")).status).toBe(400);
    expect((await owner.call("GET", "/business/events?environment=TEST&limit=1.5")).status).toBe(400);
    expect((await owner.call("GET", "/business/events?environment=TEST&limit=0")).body.data).toHaveLength(1);
    const badCursor = await owner.call("GET", "/business/events?environment=TEST&cursor=nope");
    expect(badCursor.status).toBe(400);
    expect(badCursor.body.error.code).toBe("VALIDATION_ERROR");
  });
});
