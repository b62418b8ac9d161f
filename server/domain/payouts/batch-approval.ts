// A token program's deposit address approves the BatchPayout contract once (for the token, without
// limit: the contract moves tokens only from its caller, so only this address's own transactions
// spend the allowance). The approval is recorded as a batch of kind APPROVAL paying nobody, signed
// and recorded under the sender lock before it is broadcast, and settled like any batch.
import type { Address, Hash } from "viem";
import { db, type Tx } from "../../db/client";
import { transactionRetried } from "../../db/retry";
import { onChain } from "../../chain/clients";
import { allowanceOf, approvalCall } from "./batch-call";
import { broadcastBatch, checkBatch } from "./batch-settle";
import { lockSender, nextNonce, pendingBatch } from "./create";
import { receiptOf, recordBatchTransaction, signBatchNew, TX_OPTIONS, type Sender } from "./sender";

async function waitReceipt(s: Sender, hash: Hash, ms: number) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await receiptOf(s, hash)) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

/** Records the approval (null when another payout or batch of the sender is PENDING: it goes first). */
async function recordApproval(s: Sender, contract: Address, chainId: number): Promise<string | null> {
  const call = approvalCall(s.asset, contract);
  const gas = await onChain(s.target, "estimateGas", () => s.client.estimateGas({ account: s.address, ...call }));
  const chainNonce = await onChain(s.target, "getTransactionCount", () => s.client.getTransactionCount({ address: s.address, blockTag: "pending" }));
  return transactionRetried(async (tx: Tx) => {
    await lockSender(tx, s);
    if (await pendingBatch(tx, s)) return null;
    if (await tx.payout.findFirst({ where: { environment: s.environment, fromAddress: s.address, status: "PENDING" }, select: { id: true } })) return null;
    const nonce = await nextNonce(tx, s, chainNonce, s.genesis ?? null);
    const signed = await signBatchNew(tx, s, call, { nonce, gasLimit: gas + gas / 5n, fees: s.fees!, chainId });
    const batch = await tx.payoutBatch.create({
      data: {
        businessId: s.businessId, environment: s.environment, kind: "APPROVAL", fromAddress: s.address, contractAddress: contract, tokenAddress: s.asset.tokenAddress,
        chainId, chainGenesis: s.genesis ?? null, nonce, txHash: signed.txHash, rawTx: signed.rawTx, recipients: 0, amountWei: "0",
      },
    });
    await recordBatchTransaction(tx, batch.id, signed);
    return batch.id;
  }, TX_OPTIONS);
}

/**
 * True when the contract may move `total` of the token from the deposit address now. Otherwise
 * records and sends the approval (or brings the one sent before forward) and waits briefly for
 * it to be mined; false while it is not (this run pays one transfer each).
 */
export async function ensureApproval(s: Sender, contract: Address, total: bigint, chainId: number): Promise<boolean> {
  if ((await allowanceOf(s, contract)) >= total) return true;
  const open = await db.payoutBatch.findFirst({ where: { businessId: s.businessId, environment: s.environment, kind: "APPROVAL", tokenAddress: s.asset.tokenAddress, status: { in: ["PENDING", "SENT"] } } });
  const id = open?.id ?? (await recordApproval(s, contract, chainId));
  if (!id) return false;
  const sent = await broadcastBatch(s, id);
  if (sent.status === "SENT" && (await waitReceipt(s, sent.txHash as Hash, 30_000))) await checkBatch(s, id);
  return (await allowanceOf(s, contract)) >= total;
}
