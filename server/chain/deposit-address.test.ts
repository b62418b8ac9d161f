// Deposit address derivation: BIP-44 paths, per-environment separation, LIVE safety.
import { afterEach, describe, expect, it } from "vitest";
import { english, generateMnemonic, mnemonicToAccount } from "viem/accounts";
import { DEV_MNEMONIC, depositAddressFor, liveMnemonicProblem } from "./deposit-address";
import { chainTarget } from "./clients";
import { db } from "../db/client";
import { openInstallation } from "../db/installation";
import type { SqlRunner } from "../db/migrate";

const saved = { ...process.env };
afterEach(() => {
  for (const k of ["DEPOSIT_MNEMONIC", "DEPOSIT_MNEMONIC_TEST", "CHAIN_RPC_URL", "FUNDING_CONFIRMATIONS", "FUNDING_CONFIRMATIONS_TEST"]) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

describe("depositAddressFor", () => {
  const keptMnemonic = async () => (await db.$queryRaw<{ m: string }[]>`SELECT "testDepositMnemonic" AS m FROM "Installation"`)[0]?.m;
  const runner: SqlRunner = {
    query: async (sql, params = []) => ({ rows: await db.$queryRawUnsafe<Record<string, unknown>[]>(sql, ...params) }),
    exec: async (sql) => void (await db.$executeRawUnsafe(sql)),
  };

  it("TEST follows m/44'/60'/1'/0/{depositIndex} of this installation's own mnemonic, generated on first start and kept with its data", async () => {
    delete process.env.DEPOSIT_MNEMONIC;
    delete process.env.DEPOSIT_MNEMONIC_TEST;
    await db.$queryRaw`SELECT 1`; // the database is open: its installation's mnemonic was read with it
    const kept = await keptMnemonic();
    expect(kept.split(" ")).toHaveLength(12);
    expect(kept).not.toBe(DEV_MNEMONIC);
    expect(depositAddressFor("TEST", 7)).toBe(mnemonicToAccount(kept, { accountIndex: 1, addressIndex: 7 }).address);
    expect(depositAddressFor("TEST", 7)).not.toBe(mnemonicToAccount(DEV_MNEMONIC, { accountIndex: 1, addressIndex: 7 }).address);
    // Opened again, the installation keeps its mnemonic; a fresh installation gets another one.
    expect(await openInstallation(runner)).toBe(kept);
    await db.$executeRaw`DELETE FROM "Installation"`;
    const fresh = await openInstallation(runner);
    expect(fresh).not.toBe(kept);
    expect(depositAddressFor("TEST", 7)).toBe(mnemonicToAccount(fresh, { accountIndex: 1, addressIndex: 7 }).address);
    // DEPOSIT_MNEMONIC_TEST names one explicitly (several instances of one installation, or a chosen seed).
    const chosen = generateMnemonic(english);
    process.env.DEPOSIT_MNEMONIC_TEST = chosen;
    expect(depositAddressFor("TEST", 7)).toBe(mnemonicToAccount(chosen, { accountIndex: 1, addressIndex: 7 }).address);
    // Not one of Hardhat's prefunded dev accounts (account 0'), which anyone can spend from.
    delete process.env.DEPOSIT_MNEMONIC_TEST;
    expect(depositAddressFor("TEST", 0)).not.toBe(mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 0 }).address);
  });

  it("one address per business index, stable across calls", () => {
    delete process.env.DEPOSIT_MNEMONIC;
    const addrs = [1, 2, 3, 4].map((i) => depositAddressFor("TEST", i));
    expect(new Set(addrs).size).toBe(4);
    expect(depositAddressFor("TEST", 3)).toBe(addrs[2]);
  });

  it("LIVE refuses the public dev mnemonic, and uses account 0' of a private one", () => {
    delete process.env.DEPOSIT_MNEMONIC;
    expect(depositAddressFor("LIVE", 1)).toBeNull();
    expect(liveMnemonicProblem()).toMatch(/DEPOSIT_MNEMONIC/);
    const m = generateMnemonic(english);
    process.env.DEPOSIT_MNEMONIC = `  ${m.split(" ").join("   ")} `;
    expect(liveMnemonicProblem()).toBeNull();
    expect(depositAddressFor("LIVE", 1)).toBe(mnemonicToAccount(m, { accountIndex: 0, addressIndex: 1 }).address);
    expect(depositAddressFor("TEST", 1)).toBe(mnemonicToAccount(m, { accountIndex: 1, addressIndex: 1 }).address);
    expect(depositAddressFor("LIVE", 1)).not.toBe(depositAddressFor("TEST", 1));
  });

  it("a malformed mnemonic or index derives nothing", () => {
    process.env.DEPOSIT_MNEMONIC = "not a real mnemonic at all";
    expect(depositAddressFor("TEST", 1)).toBeNull();
    expect(depositAddressFor("LIVE", 1)).toBeNull();
    delete process.env.DEPOSIT_MNEMONIC;
    expect(depositAddressFor("TEST", -1)).toBeNull();
    expect(depositAddressFor("TEST", 2 ** 31)).toBeNull();
  });
});

describe("chainTarget", () => {
  it("LIVE needs CHAIN_RPC_URL and a private mnemonic; TEST defaults to the local node", () => {
    delete process.env.CHAIN_RPC_URL;
    delete process.env.DEPOSIT_MNEMONIC;
    expect(chainTarget("LIVE")).toEqual({ problem: expect.stringMatching(/CHAIN_RPC_URL/) });
    process.env.CHAIN_RPC_URL = "https://rpc.example.com";
    expect(chainTarget("LIVE")).toEqual({ problem: expect.stringMatching(/DEPOSIT_MNEMONIC/) });
    process.env.DEPOSIT_MNEMONIC = generateMnemonic(english);
    process.env.FUNDING_CONFIRMATIONS = "12";
    expect(chainTarget("LIVE")).toEqual({ environment: "LIVE", rpcUrl: "https://rpc.example.com", confirmations: 12 });
    process.env.FUNDING_CONFIRMATIONS_TEST = "0";
    // At least one confirmation: the transaction must be mined.
    expect(chainTarget("TEST")).toMatchObject({ environment: "TEST", confirmations: 1 });
  });
});
