// The ledger CSV and the ledger list's running balance, against the real database: a pool funded
// twice, rewards debited, one reversed back to the pool; the books close from the file alone.
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { domainBusiness, fund, participant, trackReferral } from "../../../tests/support/domain";
import { reverseOneReward } from "../reversals/reversals";
import { listLedger } from "../ledger/list";
import { getBalanceWei } from "../ledger/service";
import { ethToWei, weiToEth } from "../../shared/money";
import { ledgerCsv } from "./ledger-csv";

/** A CSV of simple cells (ours have no quoted commas in these columns) as objects. */
async function readCsv(lines: AsyncGenerator<string>) {
  let text = "";
  for await (const l of lines) text += l;
  const [head, ...rows] = text.trim().split("\r\n");
  const cols = head.split(",");
  return rows.map((r) => {
    const cells = r.match(/("([^"]|"")*"|[^,]*)(,|$)/g)!.map((c) => c.replace(/,$/, "").replace(/^"|"$/g, "").replace(/""/g, '"'));
    return Object.fromEntries(cols.map((c, i) => [c, cells[i]]));
  });
}

describe("ledger export", () => {
  it("lists every entry in chain order with a running balance that ends at the pool's, deposits with their transaction", async () => {
    const { businessId, scope } = await domainBusiness({ referralRewardEth: "0.01", bonusEth: "0.002", fundEth: "1" });
    const alice = await participant(scope, { name: "Alice" });
    await trackReferral(scope, alice.referralCode);
    const second = await trackReferral(scope, alice.referralCode);
    await fund(businessId, "TEST", "0.5");
    const reward = await db.reward.findFirstOrThrow({ where: { eventId: second.body.eventId, kind: "REFERRAL" } });
    await reverseOneReward(businessId, reward.id, "refunded order", "staff-user");

    const rows = await readCsv(ledgerCsv(businessId, "TEST"));
    expect(rows.map((r) => r.kind)).toEqual(["FUNDING", "REWARD", "REWARD", "REWARD", "REWARD", "FUNDING", "REVERSAL"]);
    let running = 0n;
    for (const r of rows) {
      running += ethToWei(r.amountEth.replace(/^-/, "")) * (r.amountEth.startsWith("-") ? -1n : 1n);
      expect(r.balanceEth, r.ledgerEntryId).toBe(weiToEth(running));
      expect(r.direction).toBe(r.amountEth.startsWith("-") ? "DEBIT" : "CREDIT");
      expect(r.reference.length).toBeGreaterThan(5);
    }
    expect(rows.at(-1)!.balanceEth).toBe(weiToEth(await getBalanceWei(db, businessId, "TEST")));
    expect(rows.at(-1)!.balanceEth).toBe("1.486");
    const deposits = rows.filter((r) => r.kind === "FUNDING");
    for (const d of deposits) expect(d.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(deposits[0].reference).toBe(`Deposit to the pool, transaction ${deposits[0].txHash}`);
    expect(rows[1].reference).toMatch(/^Referral reward to Alice for a purchase event$/);
    expect(rows.find((r) => r.kind === "REWARD" && r.reference.startsWith("Welcome bonus"))).toBeTruthy();
    expect(rows.at(-1)!.reference).toContain("refunded order");

    // The dashboard's list shows the same balance after each entry, filtered or not, page by page.
    const byId = new Map(rows.map((r) => [r.ledgerEntryId, r.balanceEth]));
    const first = await listLedger(businessId, { environment: "TEST", limit: 3 });
    const next = await listLedger(businessId, { environment: "TEST", limit: 3, cursor: first.nextCursor! });
    const listed = [...first.data, ...next.data];
    expect(listed).toHaveLength(6);
    for (const e of listed) expect(e.balanceAfterEth, e.ledgerEntryId).toBe(byId.get(e.ledgerEntryId));
    const rewardsOnly = await listLedger(businessId, { environment: "TEST", kind: "REWARD", limit: 50 });
    expect(rewardsOnly.data).toHaveLength(4);
    for (const e of rewardsOnly.data) expect(e.balanceAfterEth).toBe(byId.get(e.ledgerEntryId));
  });
});
