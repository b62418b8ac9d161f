// Deposit addresses: one per business and environment, derived from an HD wallet seed (LIVE:
// DEPOSIT_MNEMONIC; TEST: see mnemonicOf) along BIP-44 m/44'/60'/{account}'/0/{business.depositIndex}.
// TEST and LIVE use different account indices so that a business never shares one address across
// environments (a TEST deposit can never be mistaken for a LIVE one, and vice versa).
import { english, mnemonicToAccount, type HDAccount } from "viem/accounts";
import type { Address } from "viem";
import { DEV_MNEMONIC, env } from "../shared/env";
import { installationTestMnemonic } from "../shared/installation";
import type { Environment } from "../shared/environment";


export { DEV_MNEMONIC };

/** BIP-44 account index per environment. */
const DEPOSIT_ACCOUNT_INDEX: Record<Environment, number> = { LIVE: 0, TEST: 1 };

// Deriving from a mnemonic runs PBKDF2 (2048 rounds); an address never changes, so keep it.
const cache = new Map<string, Address>();
const WORDS = new Set(english);

/** Why LIVE deposits cannot be derived with the current configuration, or null when they can. */
export function liveMnemonicProblem(): string | null {
  const m = normalizeMnemonic(env.depositMnemonic);
  if (m === DEV_MNEMONIC) return "LIVE deposits need DEPOSIT_MNEMONIC: the development mnemonic is public";
  return mnemonicProblem(m);
}

function normalizeMnemonic(m: string) {
  return m.trim().toLowerCase().split(/\s+/).join(" ");
}

function mnemonicProblem(m: string): string | null {
  const words = m.split(" ");
  if (![12, 15, 18, 21, 24].includes(words.length) || words.some((w) => !WORDS.has(w))) {
    return "DEPOSIT_MNEMONIC is not a BIP-39 English mnemonic of 12 to 24 words";
  }
  return null;
}

/**
 * The seed of an environment's deposit addresses. TEST: DEPOSIT_MNEMONIC_TEST, else a private
 * DEPOSIT_MNEMONIC, else the installation's own (generated on first start, db/installation.ts):
 * never the public development mnemonic, which every instance on a development chain would share.
 */
function mnemonicOf(environment: Environment): string | null {
  const configured = normalizeMnemonic(env.depositMnemonic);
  if (environment === "LIVE") return configured;
  const test = env.depositMnemonicTest ?? (configured === DEV_MNEMONIC ? installationTestMnemonic() : configured);
  return test === null ? null : normalizeMnemonic(test);
}

/**
 * The business's deposit address for an environment, or null when that environment has no
 * usable seed (LIVE without a private DEPOSIT_MNEMONIC, TEST before the database was opened, or a
 * malformed mnemonic).
 */
export function depositAddressFor(environment: Environment, depositIndex: number): Address | null {
  const mnemonic = mnemonicOf(environment);
  if (mnemonic === null || (environment === "LIVE" ? liveMnemonicProblem() : mnemonicProblem(mnemonic))) return null;
  // Non-hardened BIP-32 child indices stop at 2^31 - 1.
  if (!Number.isInteger(depositIndex) || depositIndex < 0 || depositIndex >= 2 ** 31) return null;
  const key = `${mnemonic}\u0000${environment}\u0000${depositIndex}`;
  let address = cache.get(key);
  if (!address) {
    address = mnemonicToAccount(mnemonic, { accountIndex: DEPOSIT_ACCOUNT_INDEX[environment], addressIndex: depositIndex }).address;
    cache.set(key, address);
  }
  return address;
}

/**
 * The signing account of a deposit address (same derivation as depositAddressFor): what pays
 * the business's payouts. The key lives only in this process's memory, derived from
 * the environment's mnemonic on demand; it is never stored or logged. Null when the address is not derivable.
 */
export function depositAccountFor(environment: Environment, depositIndex: number): HDAccount | null {
  const mnemonic = mnemonicOf(environment);
  if (!depositAddressFor(environment, depositIndex) || mnemonic === null) return null;
  return mnemonicToAccount(mnemonic, { accountIndex: DEPOSIT_ACCOUNT_INDEX[environment], addressIndex: depositIndex });
}
