// A minimal EIP-1271 contract wallet for the tests, assembled by hand (the listing below is its
// source): isValidSignature(bytes32 hash, bytes signature) answers the magic value 0x1626ba7e
// when the 65-byte signature (r, s, v) recovers (ecrecover precompile) to the owner fixed at
// deployment, 0xffffffff otherwise; a call without data (plain ETH) is accepted; any other call
// reverts. It expects the standard ABI layout of that call (signature at offset 0x40, 65 bytes).
import { createPublicClient, createWalletClient, getAddress, http, type Address, type Hex } from "viem";

type Op = string | { label: string } | { push: string } | { pushLabel: string };

const OPS: Record<string, number> = {
  STOP: 0x00, EQ: 0x14, SHL: 0x1b, SHR: 0x1c, CALLDATALOAD: 0x35, CALLDATASIZE: 0x36, CODECOPY: 0x39, POP: 0x50, MLOAD: 0x51,
  MSTORE: 0x52, JUMPI: 0x57, GAS: 0x5a, JUMPDEST: 0x5b, DUP1: 0x80, RETURN: 0xf3, STATICCALL: 0xfa, REVERT: 0xfd,
};

/** The runtime code, as a listing: opcodes, PUSHn of a hex value, labels (JUMPDEST) and PUSH1 of a label. */
function listing(owner: Address): Op[] {
  const hex = (n: number) => n.toString(16).padStart(2, "0");
  return [
    // Plain ETH transfer (no calldata): accept.
    "CALLDATASIZE", { pushLabel: "call" }, "JUMPI", "STOP",
    { label: "call" },
    // Only isValidSignature(bytes32,bytes) is answered.
    { push: "00" }, "CALLDATALOAD", { push: hex(0xe0) }, "SHR", { push: "1626ba7e" }, "EQ", { pushLabel: "check" }, "JUMPI",
    { push: "00" }, "DUP1", "REVERT",
    { label: "check" },
    // ecrecover input at memory 0x00: hash, v, r, s (calldata: hash 0x04, r 0x64, s 0x84, v the byte at 0xa4).
    { push: "04" }, "CALLDATALOAD", { push: "00" }, "MSTORE",
    { push: "a4" }, "CALLDATALOAD", { push: "f8" }, "SHR", { push: "20" }, "MSTORE",
    { push: "64" }, "CALLDATALOAD", { push: "40" }, "MSTORE",
    { push: "84" }, "CALLDATALOAD", { push: "60" }, "MSTORE",
    // staticcall(gas, 0x01, 0x00, 0x80, 0x80, 0x20): the recovered address lands at 0x80 (stays 0 on failure).
    { push: "20" }, { push: "80" }, { push: "80" }, { push: "00" }, { push: "01" }, "GAS", "STATICCALL", "POP",
    { push: "80" }, "MLOAD", { push: owner.slice(2).toLowerCase() }, "EQ", { pushLabel: "valid" }, "JUMPI",
    { push: "ffffffff" }, { push: "e0" }, "SHL", { push: "00" }, "MSTORE", { push: "20" }, { push: "00" }, "RETURN",
    { label: "valid" },
    { push: "1626ba7e" }, { push: "e0" }, "SHL", { push: "00" }, "MSTORE", { push: "20" }, { push: "00" }, "RETURN",
  ];
}

/** Assembles a listing (two passes: label offsets, then bytes). */
function assemble(ops: Op[]): string {
  const size = (op: Op) => (typeof op === "string" ? 1 : "label" in op ? 1 : "push" in op ? 1 + op.push.length / 2 : 2);
  const labels = new Map<string, number>();
  let at = 0;
  for (const op of ops) {
    if (typeof op === "object" && "label" in op) labels.set(op.label, at);
    at += size(op);
  }
  let out = "";
  for (const op of ops) {
    if (typeof op === "string") out += OPS[op].toString(16).padStart(2, "0");
    else if ("label" in op) out += "5b";
    else if ("push" in op) out += (0x5f + op.push.length / 2).toString(16) + op.push;
    else out += "60" + labels.get(op.pushLabel)!.toString(16).padStart(2, "0");
  }
  return out;
}

/** Init code: copies the runtime that follows it into memory and returns it. */
function contractWalletInitCode(owner: Address): Hex {
  const runtime = assemble(listing(owner));
  const len = (runtime.length / 2).toString(16).padStart(4, "0");
  // PUSH2 len, DUP1, PUSH2 13 (this prefix's size), PUSH1 0, CODECOPY, PUSH1 0, RETURN
  return `0x61${len}8061000d6000396000f3${runtime}`;
}

/** Deploys a contract wallet owned by `owner` from an unlocked dev account; answers its address. */
export async function deployContractWallet(rpcUrl: string, from: Address, owner: Address): Promise<Address> {
  const hash = await createWalletClient({ transport: http(rpcUrl) }).sendTransaction({ account: from, to: null, data: contractWalletInitCode(owner), gas: 300_000n, chain: null });
  const receipt = await createPublicClient({ transport: http(rpcUrl) }).waitForTransactionReceipt({ hash, pollingInterval: 100 });
  if (receipt.status !== "success" || !receipt.contractAddress) throw new Error("contract wallet deployment failed");
  return getAddress(receipt.contractAddress);
}
