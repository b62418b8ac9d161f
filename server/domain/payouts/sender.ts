// The business's sending account (deposit address and key), fee quotes, gas estimates, local
// signing, and the signed versions of a payout's transaction (PayoutTransaction).
import { keccak256, type Address, type Hash, type Hex, type PublicClient, TransactionNotFoundError, TransactionReceiptNotFoundError } from "viem";
import type { HDAccount } from "viem/accounts";
import { db, type Tx } from "../../db/client";
import { LOCAL_DEV_CHAIN_IDS, onChain, publicClientFor, requireChainTarget, type ChainTarget } from "../../chain/clients";
import { depositAccountFor } from "../../chain/deposit-address";
import { AppError, notFound } from "../../shared/errors";
import { env } from "../../shared/env";
import type { Environment } from "../../shared/environment";
import { weiToDb } from "../../shared/money";
import type { Asset } from "../../shared/asset";
import { readAsset } from "../assets/read";
import { maxTransferGas, minTransferGas, transferCall, type TransferCall } from "./asset-transfer";

export const TX_OPTIONS = { timeout: 60_000, maxWait: 60_000 };

export interface Sender {
  businessId: string;
  /** Read once per run (runPayouts) so that the locked section makes fewer chain calls. */
  chainId?: number;
  /** The genesis hash of a local development chain (a new one each time it starts), else null: see chainGenesisOf. */
  genesis?: string | null;
  fees?: FeeQuote;
  environment: Environment;
  target: ChainTarget;
  account: HDAccount;
  address: Address;
  /** The business's deposit index: its own deposit addresses are never paid (walletProblem). */
  depositIndex: number;
  client: PublicClient;
  /** The environment's asset: what a payout transfers (its gas is always the deposit address's ETH). */
  asset: Asset;
}

/** The business's sending account for an environment, or 503 CHAIN_UNAVAILABLE with the reason. */
export async function senderFor(businessId: string, environment: Environment): Promise<Sender> {
  const target = requireChainTarget(environment);
  const b = await db.business.findUnique({ where: { id: businessId }, select: { depositIndex: true } });
  if (!b) throw notFound("Business");
  const account = depositAccountFor(environment, b.depositIndex);
  if (!account) throw new AppError("CHAIN_UNAVAILABLE", `No ${environment} deposit key can be derived: check DEPOSIT_MNEMONIC`, { environment });
  const asset = await readAsset(db, businessId, environment);
  return { businessId, environment, target, account, address: account.address, depositIndex: b.depositIndex, client: publicClientFor(target.rpcUrl), asset };
}

/**
 * The genesis block hash when `chainId` is a local development chain's (in memory: each start
 * is a new chain whose nonces start at 0 again), else null (a real chain's nonces never restart).
 */
export async function chainGenesisOf(s: Sender, chainId: number): Promise<string | null> {
  if (!LOCAL_DEV_CHAIN_IDS.has(chainId)) return null;
  const genesis = await onChain(s.target, "getBlock", () => s.client.getBlock({ blockNumber: 0n }));
  return genesis.hash;
}

export interface FeeQuote {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** EIP-1559 fees: twice the current base fee plus the tip, so a rising base fee does not strand it. */
export async function quoteFees(s: Sender): Promise<FeeQuote> {
  return onChain(s.target, "fees", async () => {
    const block = await s.client.getBlock({ blockTag: "latest" });
    const base = block.baseFeePerGas ?? (await s.client.getGasPrice());
    let tip: bigint;
    try {
      tip = await s.client.estimateMaxPriorityFeePerGas();
    } catch {
      tip = 1_000_000_000n;
    }
    if (tip <= 0n) tip = 1n;
    return { maxFeePerGas: base * 2n + tip, maxPriorityFeePerGas: tip };
  });
}

/**
 * The gas limit of a transfer to `to`, or why the wallet is refused: its transfer reverts in
 * estimation, or needs more than PAYOUT_MAX_GAS (the simulation is capped there, so a looping
 * wallet costs the node no more than that either). Estimated with the value, so a receiver that
 * refuses ETH shows up here rather than on chain. The chain down: 503.
 */
export async function estimateTransferGas(s: Sender, to: Address, value: bigint): Promise<{ gas: bigint } | { refused: string }> {
  const call = transferCall(s.asset, to, value);
  const max = maxTransferGas(s.asset, env.payoutMaxGas);
  const tooHungry = { refused: `WALLET_GAS_LIMIT: a transfer to ${to} needs more gas than PAYOUT_MAX_GAS (${max}); runs skip this participant until their wallet changes` };
  let gas: bigint;
  try {
    // A call capped at PAYOUT_MAX_GAS first (every node honours a call's gas limit, not every node
    // caps an estimate with it), then the estimate of a transfer now known to end within the cap.
    await onChain(s.target, "call", () => s.client.call({ account: s.address, ...call, gas: max }));
    gas = await onChain(s.target, "estimateGas", () => s.client.estimateGas({ account: s.address, ...call }));
  } catch (e) {
    if (e instanceof AppError) throw e;
    const msg = rpcMessage(e);
    // Too little ETH to simulate the transfer: a plain transfer's gas (the balance check refuses the
    // payout). Not a revert whose reason says so: that is the wallet's own answer.
    if (/insufficient funds/i.test(msg) && !REVERTED.test(msg)) return { gas: minTransferGas(s.asset) };
    if (/out of gas|exceeds allowance|gas required exceeds|intrinsic gas/i.test(msg)) return tooHungry;
    // The node's own trouble (internal error, rate limit, missing state) says nothing of the
    // wallet: 503, nothing written, the next run asks again.
    if (!REVERTED.test(msg) && nodeTrouble(e, msg)) throw new AppError("CHAIN_UNAVAILABLE", `The ${s.environment} chain could not simulate the transfer (${rpcShort(e)}); try again shortly`, { environment: s.environment });
    const short = (e as { shortMessage?: string }).shortMessage ?? String((e as Error).message);
    return { refused: `WALLET_REFUSED: a transfer to ${to} fails (${short.slice(0, 200)}); runs skip this participant until their wallet changes` };
  }
  return gas > max ? tooHungry : { gas };
}

export interface SignedTransfer {
  rawTx: Hex;
  txHash: Hash;
  nonce: number;
  gasLimit: bigint;
  fees: FeeQuote;
  chainId: number;
}

/** Signs a transfer of `value` of the sender's asset to `to` locally (the key never leaves the process). Signing alone sends nothing. */
export function signTransfer(s: Sender, p: { to: Address; value: bigint; nonce: number; gasLimit: bigint; fees: FeeQuote; chainId: number }): Promise<SignedTransfer> {
  return signCall(s, transferCall(s.asset, p.to, p.value), p);
}

/** Signs any call from the sending account (a batch, an approval) the same way. */
export async function signCall(s: Sender, call: TransferCall, p: { nonce: number; gasLimit: bigint; fees: FeeQuote; chainId: number }): Promise<SignedTransfer> {
  const rawTx = await s.account.signTransaction({
    type: "eip1559",
    chainId: p.chainId,
    nonce: p.nonce,
    ...call,
    gas: p.gasLimit,
    maxFeePerGas: p.fees.maxFeePerGas,
    maxPriorityFeePerGas: p.fees.maxPriorityFeePerGas,
  });
  return { rawTx, txHash: keccak256(rawTx), nonce: p.nonce, gasLimit: p.gasLimit, fees: p.fees, chainId: p.chainId };
}

/** The columns of one signed version of a payout's or a batch's transaction. */
const signedColumns = (t: SignedTransfer) => ({
  txHash: t.txHash,
  rawTx: t.rawTx,
  nonce: t.nonce,
  maxFeePerGas: weiToDb(t.fees.maxFeePerGas),
  maxPriorityFeePerGas: weiToDb(t.fees.maxPriorityFeePerGas),
  gasLimit: weiToDb(t.gasLimit),
});

export function recordTransaction(tx: Tx, payoutId: string, t: SignedTransfer) {
  return tx.payoutTransaction.create({ data: { payoutId, ...signedColumns(t) } });
}


/** What a transfer that fails in the receiver's code answers: a revert or an EVM fault of its code. */
export const REVERTED = /revert|invalid opcode|invalid jump|stack (underflow|overflow)|write protection|static ?call/i;
/** JSON-RPC codes of a node's own trouble: internal error, resource unavailable, limit exceeded, method unsupported. */
const NODE_TROUBLE_CODES = new Set([-32603, -32002, -32005, -32004, 429]);
const NODE_TROUBLE = /header not found|missing trie node|rate limit|too many requests|try again|temporarily|unavailable|overloaded|busy|timeout|timed out/i;

/** True when a failed call or estimate failed for the node's own reasons rather than the receiver's. */
export function nodeTrouble(e: unknown, msg = rpcMessage(e)): boolean {
  if (NODE_TROUBLE.test(msg)) return true;
  let cur: unknown = e;
  for (let i = 0; cur && i < 6; i++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === "number" && NODE_TROUBLE_CODES.has(code)) return true;
    cur = (cur as { cause?: unknown }).cause;
  }
  return false;
}

const rpcShort = (e: unknown) => String((e as { shortMessage?: string }).shortMessage ?? (e as Error).message).slice(0, 200);

export function rpcMessage(e: unknown): string {
  const parts: string[] = [];
  let cur: unknown = e;
  for (let i = 0; cur && i < 6; i++) {
    const m = (cur as { details?: string; shortMessage?: string; message?: string });
    parts.push(m.details ?? "", m.shortMessage ?? "", m.message ?? "");
    cur = (cur as { cause?: unknown }).cause;
  }
  return parts.join(" | ");
}

/** A chain read whose "not found" error (`missing`) means null. */
function foundOrNull<T>(s: Sender, method: string, read: () => Promise<T>, missing: new (...args: never[]) => Error): Promise<T | null> {
  return onChain(s.target, method, async () => {
    try {
      return await read();
    } catch (e) {
      if (e instanceof missing) return null;
      throw e;
    }
  });
}

export const receiptOf = (s: Sender, hash: Hash) => foundOrNull(s, "getTransactionReceipt", () => s.client.getTransactionReceipt({ hash }), TransactionReceiptNotFoundError);

/** The transaction the node holds under `hash` (pending or mined), or null. */
export const transactionOf = (s: Sender, hash: Hash) => foundOrNull(s, "getTransaction", () => s.client.getTransaction({ hash }), TransactionNotFoundError);

/** The mined receipt of the first of these signed versions that is mined, if one is. */
async function firstMined<V extends { txHash: string }>(s: Sender, versions: V[]) {
  for (const v of versions) {
    const receipt = await receiptOf(s, v.txHash as Hash);
    if (receipt) return { version: v, receipt };
  }
  return null;
}

/** The mined receipt of any signed version of the payout, if one is mined. */
export const minedVersion = async (s: Sender, payoutId: string) => firstMined(s, await db.payoutTransaction.findMany({ where: { payoutId }, orderBy: { createdAt: "asc" } }));

export function recordBatchTransaction(tx: Tx, batchId: string, t: SignedTransfer) {
  return tx.payoutBatchTransaction.create({ data: { batchId, ...signedColumns(t) } });
}

/**
 * Signs with `sign` at `fees`, a wei higher each time the hash is `taken` (the same bytes as an
 * earlier failed transaction's: a new payout or batch needs a hash of its own).
 */
export async function signUntaken(fees: FeeQuote, sign: (fees: FeeQuote) => Promise<SignedTransfer>, taken: (hash: string) => Promise<boolean>): Promise<SignedTransfer> {
  for (;;) {
    const signed = await sign(fees);
    if (!(await taken(signed.txHash))) return signed;
    fees = { maxFeePerGas: fees.maxFeePerGas + 1n, maxPriorityFeePerGas: fees.maxPriorityFeePerGas + 1n };
  }
}

export const payoutHashTaken = async (tx: Tx, txHash: string) => (await tx.payoutTransaction.findUnique({ where: { txHash }, select: { id: true } })) !== null;

/** Signs a batch's call under a hash no batch version has. */
export const signBatchNew = (tx: Tx, s: Sender, call: TransferCall, t: { nonce: number; gasLimit: bigint; fees: FeeQuote; chainId: number }) =>
  signUntaken(t.fees, (fees) => signCall(s, call, { ...t, fees }), async (txHash) => (await tx.payoutBatchTransaction.findUnique({ where: { txHash }, select: { id: true } })) !== null);

/** The mined receipt of any signed version of the batch, if one is mined. */
export const minedBatchVersion = async (s: Sender, batchId: string) => firstMined(s, await db.payoutBatchTransaction.findMany({ where: { batchId }, orderBy: { createdAt: "asc" } }));
