// Pool balance and on-chain funding. A business funds its pool by sending its asset (ETH or its
// token) to its deposit address (HD-derived, one per environment); POST /business/funding/verify
// checks the transaction on chain with viem and credits the ledger once per (environment, txHash).
// TEST may also ask the local dev chain's prefunded account for a test deposit.
import { readConfig } from "../effective-config/load";
import { randomBytes } from "node:crypto";
import { encodeFunctionData, getAddress, TransactionNotFoundError, TransactionReceiptNotFoundError, type Address, type Hash, type Hex } from "viem";
import { db } from "../../db/client";
import { isUniqueViolation } from "../../db/unique-violation";
import { poolFigures } from "../payouts/totals";
import { AppError, notFound } from "../../shared/errors";
import { toBigInt, weiToDb } from "../../shared/money";
import { assetTagOf, isNative, type Asset } from "../../shared/asset";
import { amountOf, readAsset, unitsOfInput } from "../assets/read";
import { transfersTo, type TransferLog } from "../payouts/asset-transfer";
import { testTokenAbi } from "../../chain/contracts";
import { ensureLocalDeployments } from "../../chain/local-deploy";
import { chainTarget, DEV_FAUCET_ADDRESS, isChainDown, LOCAL_DEV_CHAIN_IDS, onChain, publicClientFor, requireChainTarget, walletClientFor, type ChainTarget } from "../../chain/clients";
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
  const [balanceWei, config, pool, asset] = await Promise.all([
    getBalanceWei(db, businessId, environment),
    readConfig(db, businessId, environment),
    db.pool.findUnique({ where: { businessId_environment: { businessId, environment } }, select: { belowThreshold: true } }),
    readAsset(db, businessId, environment),
  ]);
  const target = chainTarget(environment);
  const thresholdWei = config ? toBigInt(config.lowPoolAlertWei) : 0n;
  const figures = await poolFigures(businessId, environment, depositIndex, asset);
  return {
    ...figures,
    environment,
    asset: assetTagOf(asset),
    balanceEth: amountOf(balanceWei.toString(), asset),
    balanceWei: balanceWei.toString(),
    depositAddress: depositAddressFor(environment, depositIndex),
    lowPoolAlertEth: amountOf(thresholdWei.toString(), asset),
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
async function replayAnswer(entry: CreditedEntry, businessId: string, environment: Environment, hash: string, depositAddress: Address, asset: Asset): Promise<VerifyFundingOutput> {
  if (entry.businessId !== businessId) {
    // Credited to another business, so it was sent to another business's deposit address.
    throw reject("WRONG_RECIPIENT", "This transaction was not sent to this business's deposit address", { depositAddress });
  }
  const balanceWei = await getBalanceWei(db, businessId, environment);
  return {
    txHash: hash,
    environment,
    asset: assetTagOf(asset),
    amountEth: amountOf(entry.amountWei, asset),
    creditedEth: "0",
    alreadyCredited: true,
    balanceEth: amountOf(balanceWei.toString(), asset),
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

/** The transaction and its receipt, mined and successful; 422 FUNDING_REJECTED otherwise. */
async function minedTransaction(target: ChainTarget, environment: Environment, hash: Hash) {
  const client = publicClientFor(target.rpcUrl);
  const tx = await onChain(target, "getTransaction", async () => {
    try {
      return await client.getTransaction({ hash });
    } catch (e) {
      if (e instanceof TransactionNotFoundError) return null;
      throw e;
    }
  });
  if (!tx) throw reject("TX_NOT_FOUND", `Transaction ${hash} was not found on the ${environment} chain`);
  const receipt = await onChain(target, "getTransactionReceipt", async () => {
    try {
      return await client.getTransactionReceipt({ hash });
    } catch (e) {
      if (e instanceof TransactionReceiptNotFoundError) return null;
      throw e;
    }
  });
  if (!receipt) throw reject("TX_PENDING", "The transaction is not mined yet; verify again once it is confirmed", { confirmations: 0, required: target.confirmations });
  if (receipt.status !== "success") throw reject("TX_REVERTED", "The transaction reverted on chain; nothing was transferred");
  const head = await onChain(target, "getBlockNumber", () => client.getBlockNumber({ cacheTime: 0 }));
  return { tx, receipt, confirmations: Number(head - receipt.blockNumber + 1n) };
}

/** What the transaction paid the deposit address in the asset: its value (ETH) or the token's Transfer logs to it. */
function depositIn(asset: Asset, mined: Awaited<ReturnType<typeof minedTransaction>>, depositAddress: Address): { amount: bigint; logs: TransferLog[] } {
  const { tx, receipt } = mined;
  if (isNative(asset)) {
    if (!tx.to || tx.to.toLowerCase() !== depositAddress.toLowerCase()) {
      throw reject("WRONG_RECIPIENT", "The transaction was not sent to this business's deposit address", { depositAddress, recipient: tx.to ? getAddress(tx.to) : null });
    }
    if (tx.value <= 0n) throw reject("ZERO_VALUE", "The transaction transferred no ETH");
    return { amount: tx.value, logs: [] };
  }
  const logs = transfersTo(receipt.logs, asset.tokenAddress!, depositAddress).filter((l) => l.amount > 0n);
  if (!logs.length) {
    throw reject("WRONG_RECIPIENT", `The transaction transferred no ${asset.symbol} (${asset.tokenAddress}) to this business's deposit address`, { depositAddress, tokenAddress: asset.tokenAddress });
  }
  return { amount: logs.reduce((sum, l) => sum + l.amount, 0n), logs };
}

/**
 * Verifies a deposit on chain and credits it to the pool exactly once: for ETH the transaction's
 * value, for a token the sum of its Transfer logs to the deposit address (each log recorded once,
 * ever: FundingTransfer's key). A hash already credited to this business answers 200 with
 * alreadyCredited: true and creditedEth "0", also under concurrent calls: the pool lock
 * serialises credits and the unique (environment, txHash) index is the backstop.
 */
export async function verifyFunding(businessId: string, input: VerifyFundingInput): Promise<VerifyFundingOutput> {
  const { environment, txHash: hash } = input;
  const target = requireChainTarget(environment);
  const depositIndex = await businessDepositIndex(businessId);
  const depositAddress = depositAddressFor(environment, depositIndex);
  if (!depositAddress) throw new AppError("CHAIN_UNAVAILABLE", `No deposit address can be derived for ${environment}: check DEPOSIT_MNEMONIC`, { environment });
  const asset = await readAsset(db, businessId, environment);

  const known = await findCredit(environment, hash);
  if (known) return replayAnswer(known, businessId, environment, hash, depositAddress, asset);

  const mined = await minedTransaction(target, environment, hash);
  const deposit = depositIn(asset, mined, depositAddress);
  const { confirmations, tx, receipt } = mined;
  if (confirmations < target.confirmations) {
    throw reject("INSUFFICIENT_CONFIRMATIONS", `The transaction has ${confirmations} of the ${target.confirmations} confirmations required; verify again later`, {
      confirmations,
      required: target.confirmations,
    });
  }
  const from = getAddress(deposit.logs[0]?.from ?? tx.from);
  const memo = `On-chain deposit from ${from} in block ${receipt.blockNumber}`;
  try {
    const outcome = await creditOnce({ businessId, environment, hash, asset, amount: deposit.amount, logs: deposit.logs, memo });
    if (!outcome.credit) return replayAnswer(outcome.replay, businessId, environment, hash, depositAddress, asset);
    const entry = await db.ledgerEntry.findUniqueOrThrow({ where: { id: outcome.credit.ledgerEntryId }, select: { createdAt: true } });
    return {
      txHash: hash,
      environment,
      asset: assetTagOf(asset),
      amountEth: amountOf(deposit.amount.toString(), asset),
      creditedEth: amountOf(deposit.amount.toString(), asset),
      alreadyCredited: false,
      balanceEth: amountOf(outcome.credit.balanceWei.toString(), asset),
      depositAddress,
      from,
      blockNumber: receipt.blockNumber.toString(),
      confirmations,
      ledgerEntryId: outcome.credit.ledgerEntryId,
      creditedAt: entry.createdAt.toISOString(),
    };
  } catch (e) {
    // Another business's pool lock does not cover this hash: the unique indexes are the backstop.
    if (!isUniqueViolation(e)) throw e;
    const winner = await findCredit(environment, hash);
    if (!winner) throw e;
    return replayAnswer(winner, businessId, environment, hash, depositAddress, asset);
  }
}

interface CreditInputs {
  businessId: string;
  environment: Environment;
  hash: string;
  asset: Asset;
  amount: bigint;
  logs: TransferLog[];
  memo: string;
}

/** The credit of a verified deposit, under the pool lock, unless the hash is credited already (then the earlier entry). */
function creditOnce(c: CreditInputs) {
  return db.$transaction(async (t) => {
    // Under the pool lock, a concurrent verification of the same hash has either committed
    // (found here) or not started its insert: credits of one hash cannot both pass. The asset
    // changes only under the same lock, so the one read above is still the environment's.
    await lockPool(t, c.businessId, c.environment);
    const again = await findCredit(c.environment, c.hash, t);
    if (again) return { replay: again, credit: null };
    const now = await readAsset(t, c.businessId, c.environment);
    if (now.asset !== c.asset.asset || now.tokenAddress !== c.asset.tokenAddress) throw new AppError("CONFLICT", "The environment's asset changed while the deposit was verified; verify again");
    const credit = await creditLedger(t, { businessId: c.businessId, environment: c.environment, amountWei: c.amount, kind: "FUNDING", txHash: c.hash, memo: c.memo });
    if (c.logs.length) {
      await t.fundingTransfer.createMany({
        data: c.logs.map((l) => ({ environment: c.environment, txHash: c.hash, logIndex: l.logIndex, businessId: c.businessId, ledgerEntryId: credit.ledgerEntryId, tokenAddress: c.asset.tokenAddress!, fromAddress: getAddress(l.from), amount: weiToDb(l.amount) })),
      });
    }
    await emitWebhookEvent(t, fundingWebhook({ businessId: c.businessId, environment: c.environment, txHash: c.hash, amountWei: c.amount, ...credit }, c.asset)); // webhook
    return { replay: null, credit };
  });
}

/** At most this much per test deposit: 100 ETH, or a million units of a token. */
const testDepositMax = (asset: Asset) => (isNative(asset) ? 100n : 1_000_000n) * 10n ** BigInt(asset.decimals);

/**
 * TEST only, local dev chain only: sends amountEth (in the environment's asset) from the chain's
 * prefunded dev account (Hardhat's account #0 of the public test mnemonic, unlocked on the node)
 * to this business's TEST deposit address and waits for the receipt: ETH as a transfer, a token
 * as a mint (the test stablecoin and TestToken mint to anyone). Crediting stays with
 * /business/funding/verify, so the dashboard exercises the same path as a real deposit.
 */
export async function sendTestDeposit(businessId: string, amountEth: string): Promise<TestDepositOutput> {
  const target = requireChainTarget("TEST");
  const depositIndex = await businessDepositIndex(businessId);
  const to = depositAddressFor("TEST", depositIndex);
  if (!to) throw new AppError("CHAIN_UNAVAILABLE", "No TEST deposit address can be derived: check DEPOSIT_MNEMONIC", { environment: "TEST" });
  const asset = await readAsset(db, businessId, "TEST");
  const value = unitsOfInput(amountEth, asset, "amountEth");
  if (value > testDepositMax(asset)) {
    throw new AppError("VALIDATION_ERROR", "Request validation failed", [{ path: "amountEth", message: `At most ${amountOf(testDepositMax(asset), asset)} ${asset.symbol} per test deposit` }]);
  }
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
  // A random payload (or suffix: the token ignores calldata past its arguments) makes every test
  // deposit's hash unique: the local chain starts empty on each restart while the ledger
  // persists, and the same sender, nonce and call would otherwise reproduce a credited hash.
  const salt = randomBytes(16).toString("hex");
  const call = isNative(asset)
    ? { to, value, data: `0x${salt}` as const }
    : { to: asset.tokenAddress!, value: 0n, data: `${encodeFunctionData({ abi: testTokenAbi, functionName: "mint", args: [to, value] })}${salt}` as Hex };
  if (!isNative(asset)) await ensureLocalDeployments(target.rpcUrl);
  // eth_sendTransaction from the node's unlocked account: the node assigns the nonce, so
  // concurrent test deposits (from any process) never collide.
  const hash = await onChain(target, "eth_sendTransaction", () => wallet.sendTransaction({ account: DEV_FAUCET_ADDRESS, ...call, chain: null }).catch((e: unknown) => {
    if (isNative(asset) || isChainDown(e)) throw e;
    throw new AppError("UNPROCESSABLE", `${asset.symbol} at ${asset.tokenAddress} cannot be minted for a test deposit: fund the deposit address with a transfer instead`, { reason: "NOT_MINTABLE" });
  }));
  const receipt = await onChain(target, "waitForTransactionReceipt", () => client.waitForTransactionReceipt({ hash, timeout: 30_000, pollingInterval: 200 }));
  if (receipt.status !== "success") throw new AppError("UNPROCESSABLE", `The test deposit of ${asset.symbol} reverted`, { reason: "NOT_MINTABLE", txHash: hash });
  return { txHash: hash, environment: "TEST", asset: assetTagOf(asset), amountEth: amountOf(value, asset), from: DEV_FAUCET_ADDRESS, to, blockNumber: receipt.blockNumber.toString() };
}
