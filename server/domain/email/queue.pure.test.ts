// Which emails the domain's events and the rules core's runs cause, and what a message says
// (pure: no database).
import { describe, expect, it } from "vitest";
import { emailContent, oneLine } from "./content";
import { ETH_ASSET } from "../../shared/asset";
import { emailsForEvents, emailsOfRun } from "./queue";

describe("emails of events", () => {
  it("one digest per participant for earned rewards (by hand or released from review), none for held or refused ones", () => {
    const out = emailsForEvents([
      { type: "reward.created", data: { participantId: "p1", status: "PAID" } },
      { type: "reward.created", data: { participantId: "p1", status: "PAID" } },
      { type: "reward.created", data: { participantId: "p2", status: "HELD" } },
      { type: "event.reviewed", data: { rewards: [{ participantId: "p3", status: "PAID" }, { participantId: "p4", status: "REFUSED" }] } },
      { type: "referral.created", data: { referrerId: "p1" } },
    ]);
    expect(out).toEqual([
      { kind: "REWARD_EARNED", participantId: "p1", data: {} },
      { kind: "REWARD_EARNED", participantId: "p3", data: {} },
    ]);
  });

  it("a failed payout tells the referrer and the staff; a reversal carries the reversal's amount and reason; a low pool the staff", () => {
    const out = emailsForEvents([
      { type: "payout.failed", data: { participantId: "p1", payoutId: "po", amountEth: "0.5", walletAddress: "0xabc", error: "refused" } },
      { type: "reward.reversed", data: { participantId: "p1", rewardId: "r", amountEth: "1", reversal: { amountEth: "0.25", reason: "refund" } } },
      { type: "pool.low", data: { balanceEth: "0.1", thresholdEth: "1" } },
    ]);
    expect(out.map((i) => [i.kind, i.participantId])).toEqual([
      ["PAYOUT_FAILED", "p1"],
      ["PAYOUT_RUN_FAILED", undefined],
      ["REWARD_REVERSED", "p1"],
      ["LOW_POOL", undefined],
    ]);
    expect(out[2].data).toMatchObject({ amountEth: "0.25", reason: "refund" });
  });

  it("a run: a digest per participant who earned, LOW_POOL when the run raised it, nothing else", () => {
    const row = (participantId: string, status: string) => ({ row: { participantId, status } });
    const out = emailsOfRun({ asset: ETH_ASSET, rewards: [row("a", "PAID"), row("a", "PAID"), row("b", "HELD")], alerts: [{ kind: "LOW_POOL", balanceWei: 10n ** 17n, thresholdWei: 10n ** 18n }, { kind: "REFILL_REQUEST", balanceWei: 0n, thresholdWei: 0n }] });
    expect(out).toEqual([
      { kind: "REWARD_EARNED", participantId: "a", data: {} },
      { kind: "LOW_POOL", data: { balanceEth: "0.1", thresholdEth: "1" } },
    ]);
    expect(emailsOfRun({ asset: ETH_ASSET, rewards: [], alerts: [] })).toEqual([]);
  });
});

describe("what a message says", () => {
  it("a subject is one line; TEST says so; amounts are rounded for display", () => {
    const c = emailContent({ kind: "PAYOUT_SENT", environment: "TEST", businessId: "b1", businessName: "Evil\r\nBcc: x@example.com", name: "N", asset: ETH_ASSET, data: { amountEth: "0.123456789", txHash: "0xh" } });
    expect(c.subject).toBe("[TEST] Evil Bcc: x@example.com sent you 0.1235 ETH");
    expect(oneLine("a\nb\u2028c")).toBe("a b c");
    expect(c.action?.url).toMatch(/\/portal\/sign-in\?business=b1$/);
  });
});
