// GET /api/export/ledger (CSV): the pool's books, every entry in the order the ledger's hash chain
// gives them (seq): funding deposits (with their transaction), reward debits, gas, reversals and
// adjustments, each with its signed amount, the running balance after it and what it is for in
// words, so that the pool can be reconciled from the file alone: the last balance is the pool's.
import { db } from "../../db/client";
import type { Environment } from "../../shared/environment";
import { toBigInt } from "../../shared/money";
import { amountOf } from "../../shared/asset";
import { readAsset } from "../assets/read";
import { csvLine } from "../../shared/csv";

const BATCH = 500;

type Entry = Awaited<ReturnType<typeof readPage>>[number];

const readPage = (businessId: string, environment: Environment, afterSeq: bigint | null) =>
  db.ledgerEntry.findMany({
    where: { businessId, environment, ...(afterSeq === null ? {} : { seq: { gt: afterSeq } }) },
    orderBy: { seq: "asc" },
    take: BATCH,
    include: { reward: { select: { kind: true, event: { select: { eventName: true } }, participant: { select: { name: true, email: true, referralCode: true } } } } },
  });

const REWARD_WORDS = { REFERRAL: "Referral reward", BONUS: "Welcome bonus", MANUAL: "Manual reward", COMMISSION: "Commission" } as const;

/** What an entry is for, in words (the memo, when there is one, adds the detail). */
function ledgerReference(e: Pick<Entry, "kind" | "txHash" | "memo" | "reward">): string {
  const r = e.reward;
  switch (e.kind) {
    case "FUNDING":
      return e.txHash ? `Deposit to the pool, transaction ${e.txHash}` : `Credit to the pool${e.memo ? `: ${e.memo}` : ""}`;
    case "REWARD": {
      if (!r) return e.memo ?? "Reward";
      const to = r.participant.name ?? r.participant.email ?? r.participant.referralCode;
      return `${REWARD_WORDS[r.kind]} to ${to}${r.event ? ` for a ${r.event.eventName} event` : ""}`;
    }
    case "REVERSAL":
      return e.memo ? `Returned to the pool: ${e.memo}` : "Reward reversed, returned to the pool";
    case "GAS":
      return e.memo ?? "Gas of a payout";
    default:
      return e.memo ?? "Adjustment";
  }
}

export async function* ledgerCsv(businessId: string, environment: Environment): AsyncGenerator<string> {
  yield csvLine(["ledgerEntryId", "seq", "environment", "createdAt", "kind", "direction", "amountEth", "balanceEth", "txHash", "rewardId", "reference", "memo"]);
  const asset = await readAsset(db, businessId, environment);
  let balance = 0n;
  let after: bigint | null = null;
  for (;;) {
    const page = await readPage(businessId, environment, after);
    for (const e of page) {
      const amount = toBigInt(e.amountWei);
      balance += amount;
      yield csvLine([e.id, e.seq.toString(), e.environment, e.createdAt, e.kind, amount < 0n ? "DEBIT" : "CREDIT", amountOf(amount, asset), amountOf(balance, asset), e.txHash, e.rewardId, ledgerReference(e), e.memo]);
    }
    if (page.length < BATCH) return;
    after = page[page.length - 1].seq;
  }
}
