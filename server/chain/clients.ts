// viem clients for the two chains the service reads: LIVE (CHAIN_RPC_URL, no default) and
// TEST (CHAIN_RPC_URL_TEST, by default the local Hardhat 3 / EDR node that `npm start` brings
// up on 127.0.0.1:8545). Chain failures become 503 CHAIN_UNAVAILABLE at this one place.
import {
  BaseError,
  createPublicClient,
  createWalletClient,
  http,
  HttpRequestError,
  RpcRequestError,
  TimeoutError,
  type Address,
  type PublicClient,
  type WalletClient,
} from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { AppError } from "../shared/errors";
import { env } from "../shared/env";
import type { Environment } from "../shared/environment";
import { DEV_MNEMONIC, liveMnemonicProblem } from "./deposit-address";

export interface ChainTarget {
  environment: Environment;
  rpcUrl: string;
  /** Blocks (including the transaction's own) required before a deposit is credited. */
  confirmations: number;
}

/** Where an environment's chain is, or why it is not configured. */
export function chainTarget(environment: Environment): ChainTarget | { problem: string } {
  if (environment === "LIVE") {
    if (!env.chainRpcUrl) return { problem: "The LIVE chain is not configured: set CHAIN_RPC_URL" };
    const problem = liveMnemonicProblem();
    if (problem) return { problem };
    return { environment, rpcUrl: env.chainRpcUrl, confirmations: Math.max(1, env.fundingConfirmations) };
  }
  return { environment, rpcUrl: env.chainRpcUrlTest, confirmations: Math.max(1, env.fundingConfirmationsTest) };
}

/** The target, or 503 CHAIN_UNAVAILABLE with the configuration problem. */
export function requireChainTarget(environment: Environment): ChainTarget {
  const t = chainTarget(environment);
  if ("problem" in t) throw new AppError("CHAIN_UNAVAILABLE", t.problem, { environment });
  return t;
}

// One client per RPC URL: viem clients are stateless apart from their transport.
const publicClients = new Map<string, PublicClient>();
const walletClients = new Map<string, WalletClient>();

// Short timeout and a single retry: a dead RPC must answer 503 quickly, not hang the request.
const transport = (url: string) => http(url, { timeout: 8_000, retryCount: 1, retryDelay: 100 });

export function publicClientFor(rpcUrl: string): PublicClient {
  let c = publicClients.get(rpcUrl);
  if (!c) {
    c = createPublicClient({ transport: transport(rpcUrl) });
    publicClients.set(rpcUrl, c);
  }
  return c;
}

export function walletClientFor(rpcUrl: string): WalletClient {
  let c = walletClients.get(rpcUrl);
  if (!c) {
    c = createWalletClient({ transport: transport(rpcUrl) });
    walletClients.set(rpcUrl, c);
  }
  return c;
}

/** Chain ids of local development nodes (Hardhat / EDR, Anvil: 31337; Ganache-style: 1337). */
export const LOCAL_DEV_CHAIN_IDS = new Set([31337, 1337]);

/** Hardhat's prefunded dev account #0 of the standard test mnemonic: the "send test deposit" faucet. */
export const DEV_FAUCET_ADDRESS: Address = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 0 }).address;

/** True when an error means the node could not be reached or did not answer in time. */
export function isChainDown(e: unknown): boolean {
  if (e instanceof HttpRequestError || e instanceof TimeoutError) return true;
  if (e instanceof BaseError) {
    const inner = e.walk((x) => x instanceof HttpRequestError || x instanceof TimeoutError);
    if (inner) return true;
  }
  const msg = String((e as { message?: string })?.message ?? "");
  return /fetch failed|ECONNREFUSED|ECONNRESET|ETIMEDOUT|socket hang up/i.test(msg);
}

/**
 * Runs a chain call; an unreachable node or a node error becomes 503 CHAIN_UNAVAILABLE
 * (the caller keeps the errors it understands, e.g. "transaction not found").
 */
export async function onChain<T>(target: ChainTarget, what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof AppError) throw e;
    if (isChainDown(e) || e instanceof RpcRequestError) {
      throw new AppError("CHAIN_UNAVAILABLE", `The ${target.environment} chain is not reachable (${what}); try again shortly`, {
        environment: target.environment,
      });
    }
    throw e;
  }
}
