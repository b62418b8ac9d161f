// Totals that agree and books that close from files, over HTTP against the production build: a
// business with one-time rewards, commissions, a partial refund, a staff reversal and a rejected
// self-referral. Each total is computed here from the exported rows (rewards, events, referrals
// CSVs) and compared with every view that shows it (Referrals' stats, Overview's analytics, top
// referrers, participants, the portal, commission analytics); the ledger CSV's running balance
// ends at the pool's balance and carries the funding deposit; the public proof page answers a
// browser with HTML and a client with JSON.
import { describe, expect, it } from "vitest";
import { baseUrl, request, sdk, uniqueEmail, type Owner } from "../support/http";
import { participant, rewardsBusiness } from "./rewards-helpers";

const today = () => new Date().toISOString().slice(0, 10);
const WEI = 10n ** 18n;

/** Exact decimal string → units of 10^-18 (ETH → wei; a currency amount at 18 places). */
function units(s: string): bigint {
  const neg = s.startsWith("-");
  const [w, f = ""] = s.replace(/^-/, "").split(".");
  const v = BigInt(w) * WEI + BigInt((f + "0".repeat(18)).slice(0, 18));
  return neg ? -v : v;
}
function decimal(v: bigint): string {
  const neg = v < 0n;
  const a = neg ? -v : v;
  const frac = (a % WEI).toString().padStart(18, "0").replace(/0+$/, "");
  return `${neg ? "-" : ""}${a / WEI}${frac ? `.${frac}` : ""}`;
}

/** A CSV body as objects (RFC 4180 quoting). */
function parseCsv(text: string): Array<Record<string, string>> {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      row.push(cell);
      cell = "";
    } else if (c === "\n") {
      row.push(cell.replace(/\r$/, ""));
      rows.push(row);
      row = [];
      cell = "";
    } else cell += c;
  }
  const [head, ...body] = rows;
  return body.map((r) => Object.fromEntries(head.map((h, i) => [h, r[i]])));
}

async function csv(owner: Owner, path: string) {
  const r = await request(baseUrl(), "GET", path, undefined, { authorization: `Bearer ${owner.token}` });
  expect(r.status, path).toBe(200);
  expect(r.headers.get("content-type"), path).toContain("text/csv");
  return parseCsv(r.body as string);
}

async function ok(p: Promise<{ status: number; body: any }>) {
  const r = await p;
  expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
  return r.body;
}

async function seed() {
  const { owner, secret } = await rewardsBusiness({ referralRewardEth: "0.01", bonusEth: "0.004", fundEth: "3" });
  await ok(owner.call("POST", "/business/commission-rules", { environment: "TEST", name: "10% of purchases", eventName: "purchase", recipient: "REFERRER", type: "PERCENT", percent: "10" }));
  const aliceEmail = uniqueEmail("alice");
  const alice = await participant(secret, { name: "Alice", email: aliceEmail });
  const carol = await participant(secret, { name: "Carol" });
  const bob = uniqueEmail("bob");
  const buy = (referrer: string | null, email: string, amount: string) =>
    ok(sdk(secret, "POST", "/track", { eventName: "purchase", ...(referrer ? { referrer } : {}), amount, currency: "ETH", metadata: { referredUserEmail: email } }));
  const first = await buy(alice.referralCode, bob, "1");
  const second = await buy(null, bob, "0.5");
  // A purchase that paid a commission carries no "not a qualifying event" or "settled" reason.
  expect(second).toMatchObject({ status: "PROCESSED", reason: null });
  await ok(sdk(secret, "POST", "/sdk/rewards/reverse", { eventId: first.eventId, amount: "0.4", eventName: "refund", reason: "partial refund" }));
  const dan = await buy(carol.referralCode, uniqueEmail("dan"), "2");
  const danReward = (dan.rewards as Array<{ rewardId: string; kind: string }>).find((w) => w.kind === "REFERRAL")!;
  await ok(owner.call("POST", `/business/rewards/${danReward.rewardId}/reverse`, { reason: "fraud" }));
  const self = await buy(alice.referralCode, aliceEmail, "3");
  expect(self.status).toBe("REJECTED");
  return { owner, secret, alice, carol };
}

describe("totals that agree, books that close", () => {
  it("every view shows the totals its rows add up to; the exports say the same", async () => {
    const { owner, secret, alice, carol } = await seed();

    // From the rows: the rewards export.
    const rewards = await csv(owner, "/api/export/rewards?environment=TEST");
    const earnedStates = ["ON_HOLD", "PAYABLE", "IN_PAYOUT", "PAID_OUT", "REVERSED"];
    // The status column is where each reward stands, never the bare PAID.
    for (const r of rewards) expect([...earnedStates, "HELD_FOR_REVIEW", "REFUSED"], r.rewardId).toContain(r.status);
    expect(rewards.map((r) => r.status)).toContain("REVERSED");
    let rewarded = 0n;
    let reversed = 0n;
    const earnedBy = new Map<string, bigint>();
    for (const r of rewards) {
      expect(r.status, r.rewardId).toBe(r.state);
      if (!earnedStates.includes(r.status)) continue;
      rewarded += units(r.amountEth);
      reversed += units(r.reversedEth);
      earnedBy.set(r.recipientCode, (earnedBy.get(r.recipientCode) ?? 0n) + units(r.amountEth) - units(r.reversedEth));
    }
    expect(reversed > 0n).toBe(true);
    // From the rows: the events and referrals exports (revenue attributed).
    const referralStatus = new Map((await csv(owner, "/api/export/referrals?environment=TEST")).map((r) => [r.referralId, r.status]));
    const events = await csv(owner, "/api/export/events?environment=TEST");
    let revenue = 0n;
    for (const e of events) if (e.status === "PROCESSED" && e.amount && e.referralId && referralStatus.get(e.referralId) !== "REJECTED") revenue += units(e.amount) - units(e.refundedAmount);
    expect(events.some((e) => e.status === "PROCESSED" && e.reason === "NOT_A_QUALIFYING_EVENT")).toBe(false);

    const stats = await ok(owner.call("GET", "/business/referrals/stats?environment=TEST"));
    expect([stats.ethRewarded, stats.ethReversed, stats.ethEarned]).toEqual([decimal(rewarded), decimal(reversed), decimal(rewarded - reversed)]);
    const analytics = await ok(owner.call("GET", `/business/analytics?environment=TEST&from=${today()}&to=${today()}`));
    expect([analytics.totals.ethRewarded, analytics.totals.ethEarned]).toEqual([stats.ethRewarded, stats.ethEarned]);

    const people = await ok(owner.call("GET", "/business/participants?environment=TEST&limit=200"));
    const earnedOf = new Map((people.data as Array<{ referralCode: string; earnedEth: string }>).map((p) => [p.referralCode, p.earnedEth]));
    let everyone = 0n;
    for (const [code, wei] of earnedBy) {
      expect(earnedOf.get(code), code).toBe(decimal(wei));
      everyone += wei;
    }
    expect(decimal(everyone)).toBe(stats.ethEarned);
    for (const top of [analytics.topReferrers, stats.topReferrers] as Array<Array<{ referralCode: string; conversions: number; ethEarned: string; ethRewarded: string }>>) {
      expect(top.map((t) => t.referralCode).sort()).toEqual([alice.referralCode, carol.referralCode].sort());
      for (const t of top) expect(t.ethEarned, t.referralCode).toBe(decimal(earnedBy.get(t.referralCode)!));
      // Alice's rejected self-referral is no conversion.
      expect(top.find((t) => t.referralCode === alice.referralCode)!.conversions).toBe(1);
    }

    const session = await ok(sdk(secret, "POST", "/sdk/participants/portal-sessions", { participantId: alice.participantId }));
    const me = await ok(request(baseUrl(), "GET", "/portal/api/me", undefined, { authorization: `Bearer ${session.token}` }));
    expect(me.earnings.earnedEth).toBe(decimal(earnedBy.get(alice.referralCode)!));

    const commissions = await ok(owner.call("GET", `/business/analytics/commissions?environment=TEST&from=${today()}&to=${today()}`));
    expect(commissions.revenue).toEqual([expect.objectContaining({ currency: "ETH", amount: decimal(revenue) })]);
  });

  it("the ledger CSV closes on the pool's balance with the deposit in it; members may read it, strangers may not", async () => {
    const { owner } = await seed();
    const ledger = await csv(owner, "/api/export/ledger?environment=TEST");
    expect(Object.keys(ledger[0])).toEqual(["ledgerEntryId", "seq", "environment", "createdAt", "kind", "direction", "amountEth", "balanceEth", "txHash", "rewardId", "reference", "memo"]);
    let running = 0n;
    for (const e of ledger) {
      running += units(e.amountEth);
      expect(e.balanceEth, e.ledgerEntryId).toBe(decimal(running));
      expect(e.reference).not.toBe("");
    }
    const balance = await ok(owner.call("GET", "/business/balance?environment=TEST"));
    expect(decimal(running)).toBe(balance.balanceEth);
    const deposit = ledger.find((e) => e.kind === "FUNDING")!;
    expect(deposit).toMatchObject({ direction: "CREDIT", amountEth: "3" });
    expect(deposit.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(deposit.reference).toContain(deposit.txHash);
    expect(new Set(ledger.map((e) => e.kind))).toEqual(new Set(["FUNDING", "REWARD", "REVERSAL"]));
    // The dashboard's list shows the same running balance.
    const list = await ok(owner.call("GET", "/business/ledger?environment=TEST&limit=200"));
    const after = new Map(ledger.map((e) => [e.ledgerEntryId, e.balanceEth]));
    for (const e of list.data as Array<{ ledgerEntryId: string; balanceAfterEth: string }>) expect(e.balanceAfterEth).toBe(after.get(e.ledgerEntryId));
    // The hash-chain export stays available for ledger:verify.
    const jsonl = await request(baseUrl(), "GET", "/api/export/ledger?environment=TEST&format=jsonl", undefined, { authorization: `Bearer ${owner.token}` });
    expect(jsonl.headers.get("content-type")).toContain("application/jsonl");
    const bad = await request(baseUrl(), "GET", "/api/export/ledger?environment=TEST&format=xml", undefined, { authorization: `Bearer ${owner.token}` });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("VALIDATION_ERROR");
    expect((await request(baseUrl(), "GET", "/api/export/ledger?environment=TEST")).status).toBe(401);
  });

  it("published proofs are listed for members; the public address answers a browser with a page and a client with JSON", async () => {
    const { owner } = await seed();
    const made = await ok(owner.call("POST", "/business/proofs", { environment: "TEST" }));
    const again = await ok(owner.call("POST", "/business/proofs", { environment: "TEST" }));
    const page1 = await ok(owner.call("GET", "/business/proofs?environment=TEST&limit=1"));
    expect(page1.data.map((p: { proofId: string }) => p.proofId)).toEqual([again.proofId]);
    expect(page1.data[0]).toMatchObject({ covered: true, businessId: made.businessId, reason: "MANUAL" });
    const page2 = await ok(owner.call("GET", `/business/proofs?environment=TEST&limit=1&cursor=${page1.nextCursor}`));
    expect(page2.data.map((p: { proofId: string }) => p.proofId)).toEqual([made.proofId]);
    expect(page2.nextCursor).toBeNull();
    expect((await owner.call("GET", "/business/proofs?environment=TEST&cursor=nope")).status).toBe(400);
    expect((await owner.call("GET", "/business/proofs?environment=LIVE")).body.data).toEqual([]);
    expect((await request(baseUrl(), "GET", "/business/proofs?environment=TEST")).status).toBe(401);

    const latest = `/proofs/${made.businessId}/TEST/latest`;
    const html = await request(baseUrl(), "GET", latest, undefined, { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" });
    expect(html.status).toBe(200);
    expect(html.headers.get("content-type")).toContain("text/html");
    expect(html.headers.get("vary")).toContain("Accept");
    expect(html.body).toContain(again.root);
    expect(html.body).toContain("Covered");
    expect(html.body).toContain("verifyLiabilityProof");
    const json = await request(baseUrl(), "GET", latest, undefined, { accept: "application/json" });
    expect(json.headers.get("content-type")).toContain("application/json");
    expect(json.body).toMatchObject({ proofId: again.proofId, root: again.root });
    const missing = await request(baseUrl(), "GET", `/proofs/${made.businessId}/TEST/nope`, undefined, { accept: "text/html" });
    expect(missing.status).toBe(404);
  });
});
