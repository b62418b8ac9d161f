// The Merkle tree of a proof of liabilities (docs/trust.md), byte for byte the tree that
// OpenZeppelin's StandardMerkleTree.of(values, LEAF_ENCODING) builds, so that its `verify` and
// Solidity's MerkleProof accept our paths: leaf = keccak256(keccak256(abi.encode(participantKey,
// owedWei))), leaves sorted by hash, nodes = keccak256 of the sorted pair, the tree kept as one
// array (root at 0, children of i at 2i+1 and 2i+2, leaves at the end). The library itself spends
// most of its time converting hex strings while sorting; this builder works on bytes with a WASM
// keccak and is checked against the library by merkle.pure.test.ts.
import { createKeccak } from "hash-wasm";
import { keccak256, toBytes, toHex, type Hex } from "viem";

/** abi.encode types of a leaf: the participant key (keccak256 of the participant id) and the amount owed in wei. */
export const LEAF_ENCODING = ["bytes32", "uint256"] as const;

/** The participant key of a leaf: keccak256 of the participant id's UTF-8 bytes (no personal data). */
export const participantKey = (participantId: string): Hex => keccak256(toBytes(participantId));

/** participantKey of many ids at once (the same hash, computed with the WASM keccak). */
export async function participantKeys(participantIds: readonly string[]): Promise<Hex[]> {
  const h = await keccak();
  return participantIds.map((id): Hex => {
    h.init();
    h.update(id);
    return `0x${h.digest("hex")}`;
  });
}

export interface BuiltTree {
  /** 0x-prefixed root (32 zero bytes for a tree without leaves). */
  root: Hex;
  /** Every node, 32 bytes each, in the library's array order. */
  nodes: Buffer;
  /** Per input leaf (same order as given): its position in `nodes`. */
  treeIndex: Int32Array;
}

type Keccak = Awaited<ReturnType<typeof createKeccak>>;
let hasher: Promise<Keccak> | undefined;
const keccak = () => (hasher ??= createKeccak(256));

const UINT256_MAX = (1n << 256n) - 1n;

function writeUint256(out: Buffer, offset: number, v: bigint) {
  if (v < 0n || v > UINT256_MAX) throw new RangeError("uint256 out of range");
  for (let i = 31; i >= 0; i--) {
    out[offset + i] = Number(v & 0xffn);
    v >>= 8n;
  }
}

/** Builds the tree of `leaves` ([participant key, owed wei] each). */
export async function buildTree(leaves: ReadonlyArray<{ key: Hex; owedWei: bigint }>): Promise<BuiltTree> {
  const n = leaves.length;
  if (n === 0) return { root: `0x${"00".repeat(32)}`, nodes: Buffer.alloc(32), treeIndex: new Int32Array(0) };
  const h = await keccak();
  const enc = Buffer.alloc(64);
  const hashes = Buffer.alloc(32 * n);
  for (let i = 0; i < n; i++) {
    Buffer.from(leaves[i].key.slice(2), "hex").copy(enc, 0);
    writeUint256(enc, 32, leaves[i].owedWei);
    h.init();
    h.update(enc);
    const inner = h.digest("binary");
    h.init();
    h.update(inner);
    hashes.set(h.digest("binary"), 32 * i);
  }
  // Sort leaf positions by their hash (the library's sortLeaves), comparing bytes in place.
  const order = Array.from({ length: n }, (_, i) => i);
  order.sort((a, b) => hashes.compare(hashes, 32 * b, 32 * b + 32, 32 * a, 32 * a + 32));
  const size = 2 * n - 1;
  const nodes = Buffer.alloc(32 * size);
  const treeIndex = new Int32Array(n);
  for (let k = 0; k < n; k++) {
    const at = size - 1 - k;
    hashes.copy(nodes, 32 * at, 32 * order[k], 32 * order[k] + 32);
    treeIndex[order[k]] = at;
  }
  for (let i = size - 1 - n; i >= 0; i--) {
    const l = 32 * (2 * i + 1);
    const r = l + 32;
    // buf.compare(target, tStart, tEnd, sStart, sEnd) compares the source slice (right) with the target (left).
    const leftFirst = nodes.compare(nodes, l, l + 32, r, r + 32) >= 0;
    h.init();
    h.update(nodes.subarray(leftFirst ? l : r, (leftFirst ? l : r) + 32));
    h.update(nodes.subarray(leftFirst ? r : l, (leftFirst ? r : l) + 32));
    nodes.set(h.digest("binary"), 32 * i);
  }
  return { root: toHex(nodes.subarray(0, 32)), nodes, treeIndex };
}

/** Positions of the siblings on the way from tree position `index` to the root (the path, in order). */
export function pathIndices(index: number): number[] {
  const out: number[] = [];
  while (index > 0) {
    out.push(index % 2 === 1 ? index + 1 : index - 1);
    index = Math.floor((index - 1) / 2);
  }
  return out;
}
