// Pool balance and on-chain funding. A business funds its pool by sending ETH to its deposit
// address (HD-derived, one per environment); POST /business/funding/verify checks the
// transaction on chain with viem and credits the ledger once per (environment, txHash).
// TEST may also ask the local dev chain's prefunded account for a test deposit.
import { readConfig } from "../effective-config/load";
import { randomBytes } from "node:crypto";
import { getAddress, TransactionNotFoundError, TransactionReceiptNotFoundError, type Address } from "viem";
import { db } from "../../db/client";
import { isUniqueViolation } from "../../db/unique-violation";
import { poolFigures } from "../payouts/totals";
import { AppError, notFound } from "../../shared/errors";
import { ethToWei, toBigInt, weiToEth } from "../../shared/money";
import { chainTarget, DEV_FAUCET_ADDRESS, LOCAL_DEV_CHAIN_IDS, onChain, publicClientFor, requireChainTarget, walletClientFor } from "../../chain/clients";
import { depositAddressFor } from "../../chain/deposit-address";
import { creditLedger, getBalanceWei, lockPool } from "../ledger/service";
import type { Environment } from "../../shared/environment";
import type { BalanceOutput, FundingRejection, TestDepositOutput, VerifyFundingInput, VerifyFundingOutput } from "./schemas";
import { emitWebhookEvent, fundingWebhook } from "../webhooks/emit";

async function businessDepositIndex(businessId: string): Promise<number> {
  const b = await db.business.findUnique({ where: { id: businessId }, select: { depositIndex: true } });
  if (!b) throw notFound("Business");
  return b.depositIndex;
}

export async function getBalance(businessId: string, environment: Environment): Promise<BalanceOutput> {
  const depositIndex = await businessDepositIndex(businessId);
  const [balanceWei, config, pool] = await Promise.all([
    getBalanceWei(db, businessId, environment),
    readConfig(db, businessId, environment),
    db.pool.findUnique({ where: { businessId_environment: { businessId, environment } }, select: { belowThreshold: true } }),
  ]);
  const target = chainTarget(environment);
  const thresholdWei = config ? toBigInt(config.lowPoolAlertWei) : 0n;
  const figures = await poolFigures(businessId, environment, depositIndex);
  return {
    ...figures,
    environment,
    balanceEth: weiToEth(balanceWei),
    balanceWei: balanceWei.toString(),
    depositAddress: depositAddressFor(environment, depositIndex),
    lowPoolAlertEth: weiToEth(thresholdWei),
    belowLowPoolAlert: pool?.belowThreshold ?? false,
    chainConfigured: !("problem" in target),
    chainProblem: "problem" in target ? target.problem : null,
    confirmationsRequired: "problem" in target ? 0 : target.confirmations,
  };
}

const reject = (reason: FundingRejection, message: string, extra: Record<string, unknown> = {}) =>
  new AppError("FUNDING_REJECTED", message, { reason, ...extra });

interface CreditedEntry {
  id: string;
  businessId: string;
  amountWei: { toFixed(): string };
  createdAt: Date;
  memo: string | null;
}

/** The answer for a hash that is already in the ledger: nothing is added. */
async function replayAnswer(entry: CreditedEntry, businessId: string, environment: Environment, hash: string, depositAddress: Address): Promise<VerifyFundingOutput> {
  if (entry.businessId !== businessId) {
    // Credited to another business, so it was sent to another business's deposit address.
    throw reject("WRONG_RECIPIENT", "This transaction was not sent to this business's deposit address", { depositAddress });
  }
  const balanceWei = await getBalanceWei(db, businessId, environment);
  return {
    txHash: hash,
    environment,
    amountEth: weiToEth(entry.amountWei),
    creditedEth: "0",
    alreadyCredited: true,
    balanceEth: weiToEth(balanceWei),
    depositAddress,
    from: null,
    blockNumber: null,
    confirmations: null,
    ledgerEntryId: entry.id,
    creditedAt: entry.createdAt.toISOString(),
  };
}

const findCredit = (environment: Environment, hash: string, client: Pick<typeof db, "ledgerEntry"> = db) =>
  client.ledgerEntry.findUnique({
    where: { environment_txHash: { environment, txHash: hash } },
    select: { id: true, businessId: true, amountWei: true, createdAt: true, memo: true },
  });

/**
 * Verifies a deposit on chain and credits it to the pool exactly once.
 * A hash already credited to this business answers 200 with alreadyCredited: true and
 * creditedEth "0" (the same deposit, nothing added), also under concurrent calls: the
 * pool lock serialises credits and the unique (environment, txHash) index is the backstop.
 */
export async function verifyFunding(businessId: string, input: VerifyFundingInput): Promise<VerifyFundingOutput> {
  const { environment, txHash: hash } = input;
  const target = requireChainTarget(environment);
  const depositIndex = await businessDepositIndex(businessId);
  const depositAddress = depositAddressFor(environment, depositIndex);
  if (!depositAddress) throw new AppError("CHAIN_UNAVAILABLE", `No deposit address can be derived for ${environment}: check DEPOSIT_MNEMONIC`, { environment });

  const known = await findCredit(environment, hash);
  if (known) return replayAnswer(known, businessId, environment, hash, depositAddress);

  const client = publicClientFor(target.rpcUrl);
  const tx = await onChain(target, "getTransaction", async () => {
    try {
      return await client.getTransaction({ hash: hash });
    } catch (e) {
      if (e instanceof TransactionNotFoundError) return null;
      throw e;
    }
  });
  if (!tx) throw reject("TX_NOT_FOUND", `Transaction ${hash} was not found on the ${environment} chain`);
  const receipt = await onChain(target, "getTransactionReceipt", async () => {
    try {
      return await client.getTransactionReceipt({ hash: hash });
    } catch (e) {
      if (e instanceof TransactionReceiptNotFoundError) return null;
      throw e;
    }
  });
  if (!receipt) throw reject("TX_PENDING", "The transaction is not mined yet; verify again once it is confirmed", { confirmations: 0, required: target.confirmations });
  if (receipt.status !== "success") throw reject("TX_REVERTED", "The transaction reverted on chain; nothing was transferred");
  if (!tx.to || tx.to.toLowerCase() !== depositAddress.toLowerCase()) {
    throw reject("WRONG_RECIPIENT", "The transaction was not sent to this business's deposit address", {
      depositAddress,
      recipient: tx.to ? getAddress(tx.to) : null,
    });
  }
  if (tx.value <= 0n) throw reject("ZERO_VALUE", "The transaction transferred no ETH");
  const head = await onChain(target, "getBlockNumber", () => client.getBlockNumber({ cacheTime: 0 }));
  const confirmations = Number(head - receipt.blockNumber + 1n);
  if (confirmations < target.confirmations) {
    throw reject("INSUFFICIENT_CONFIRMATIONS", `The transaction has ${confirmations} of the ${target.confirmations} confirmations required; verify again later`, {
      confirmations,
      required: target.confirmations,
    });
  }

  const memo = `On-chain deposit from ${getAddress(tx.from)} in block ${receipt.blockNumber}`;
  try {
    const outcome = await db.$transaction(async (t) => {
      // Under the pool lock, a concurrent verification of the same hash has either committed
      // (found here) or not started its insert: credits of one hash cannot both pass.
      await lockPool(t, businessId, environment);
      const again = await findCredit(environment, hash, t);
      if (again) return { replay: again, credit: null };
      const credit = await creditLedger(t, { businessId, environment, amountWei: tx.value, kind: "FUNDING", txHash: hash, memo });
      await emitWebhookEvent(t, fundingWebhook({ businessId, environment, txHash: hash, amountWei: tx.value, ...credit })); // webhook
      return { replay: null, credit };
    });
    if (!outcome.credit) return replayAnswer(outcome.replay, businessId, environment, hash, depositAddress);
    const entry = await db.ledgerEntry.findUniqueOrThrow({ where: { id: outcome.credit.ledgerEntryId }, select: { createdAt: true } });
    return {
      txHash: hash,
      environment,
      amountEth: weiToEth(tx.value),
      creditedEth: weiToEth(tx.value),
      alreadyCredited: false,
      balanceEth: weiToEth(outcome.credit.balanceWei),
      depositAddress,
      from: getAddress(tx.from),
      blockNumber: receipt.blockNumber.toString(),
      confirmations,
      ledgerEntryId: outcome.credit.ledgerEntryId,
      creditedAt: entry.createdAt.toISOString(),
    };
  } catch (e) {
    // Another business's pool lock does not cover this hash: the unique index is the backstop.
    if (!isUniqueViolation(e)) throw e;
    const winner = await findCredit(environment, hash);
    if (!winner) throw e;
    return replayAnswer(winner, businessId, environment, hash, depositAddress);
  }
}

/**
 * TEST only, local dev chain only: sends amountEth from the chain's prefunded dev account
 * (Hardhat's account #0 of the public test mnemonic, unlocked on the node) to this business's
 * TEST deposit address and waits for the receipt. Crediting stays with /business/funding/verify,
 * so the dashboard exercises the same path as a real deposit.
 */
export async function sendTestDeposit(businessId: string, amountEth: string): Promise<TestDepositOutput> {
  const target = requireChainTarget("TEST");
  const depositIndex = await businessDepositIndex(businessId);
  const to = depositAddressFor("TEST", depositIndex);
  if (!to) throw new AppError("CHAIN_UNAVAILABLE", "No TEST deposit address can be derived: check DEPOSIT_MNEMONIC", { environment: "TEST" });
  const client = publicClientFor(target.rpcUrl);
  const wallet = walletClientFor(target.rpcUrl);
  const [chainId, accounts] = await onChain(target, "eth_chainId", () => Promise.all([client.getChainId(), wallet.getAddresses()]));
  // Only a local development node holds the dev account unlocked; never try this elsewhere.
  if (!LOCAL_DEV_CHAIN_IDS.has(chainId) || !accounts.some((a) => a.toLowerCase() === DEV_FAUCET_ADDRESS.toLowerCase())) {
    throw new AppError("UNPROCESSABLE", "Test deposits are only available when the TEST chain is a local development node", {
      reason: "NOT_A_DEV_CHAIN",
      chainId,
    });
  }
  const value = ethToWei(amountEth);
  // eth_sendTransaction from the node's unlocked account: the node assigns the nonce, so
  // concurrent test deposits (from any process) never collide.
  // A random payload makes every test deposit's hash unique: the local chain starts empty on
  // each restart while the ledger persists, and the same sender, nonce, recipient and value
  // would otherwise reproduce a hash that is already credited.
  const data = `0x${randomBytes(16).toString("hex")}` as const;
  const hash = await onChain(target, "eth_sendTransaction", () => wallet.sendTransaction({ account: DEV_FAUCET_ADDRESS, to, value, data, chain: null }));
  const receipt = await onChain(target, "waitForTransactionReceipt", () => client.waitForTransactionReceipt({ hash, timeout: 30_000, pollingInterval: 200 }));
  return { txHash: hash, environment: "TEST", amountEth: weiToEth(value), from: DEV_FAUCET_ADDRESS, to, blockNumber: receipt.blockNumber.toString() };
}
