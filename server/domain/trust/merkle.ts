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
  const keys = Buffer.alloc(32 * participantIds.length);
  hashIds(await keccak(), participantIds, keys, 32);
  return participantIds.map((_, i): Hex => `0x${keys.toString("hex", 32 * i, 32 * i + 32)}`);
}

export interface BuiltTree {
  /** 0x-prefixed root (32 zero bytes for a tree without leaves). */
  root: Hex;
  /** Every node, 32 bytes each, in the library's array order. */
  nodes: Buffer;
  /** Per input leaf (same order as given): its position in `nodes`. */
  treeIndex: Int32Array;
  /** Per input leaf (same order as given): its abi encoding, 64 bytes (participant key, owed wei). */
  encodings: Buffer;
}

type Keccak = Awaited<ReturnType<typeof createKeccak>>;
let hasher: Promise<Keccak> | undefined;
const keccak = () => (hasher ??= createKeccak(256));

const UINT256_MAX = (1n << 256n) - 1n;

/** Writes keccak256(id) of each id at out[i * stride]: the ids' UTF-8 bytes encoded in one go, then hashed slice by slice. */
function hashIds(h: Keccak, ids: readonly string[], out: Buffer, stride: number) {
  const joined = ids.join("");
  const bytes = Buffer.from(joined, "utf8");
  const ascii = bytes.length === joined.length;
  for (let i = 0, at = 0; i < ids.length; i++) {
    h.init();
    if (ascii) {
      h.update(bytes.subarray(at, (at += ids[i].length)));
    } else {
      h.update(ids[i]);
    }
    out.set(h.digest("binary"), stride * i);
  }
}

/** abi.encode of a uint256 (32 bytes, big-endian) at out[offset]. */
function writeUint256(out: Buffer, offset: number, v: bigint) {
  if (v < 0n || v > UINT256_MAX) throw new RangeError("uint256 out of range");
  const hex = v.toString(16);
  out.fill(0, offset, offset + 32);
  out.write(hex.length % 2 ? `0${hex}` : hex, offset + 32 - ((hex.length + 1) >> 1), "hex");
}

const EMPTY: BuiltTree = { root: `0x${"00".repeat(32)}`, nodes: Buffer.alloc(32), treeIndex: new Int32Array(0), encodings: Buffer.alloc(0) };

/** Builds the tree of `leaves` ([participant key, owed wei] each). */
export async function buildTree(leaves: ReadonlyArray<{ key: Hex; owedWei: bigint }>): Promise<BuiltTree> {
  if (leaves.length === 0) return EMPTY;
  const enc = Buffer.alloc(64 * leaves.length);
  for (let i = 0; i < leaves.length; i++) {
    enc.write(leaves[i].key.slice(2), 64 * i, 32, "hex");
    writeUint256(enc, 64 * i + 32, leaves[i].owedWei);
  }
  return treeOf(await keccak(), enc);
}

/** The same tree for participants given by id (participantKey of each computed here) and the wei each is owed. */
export async function buildParticipantTree(participantIds: readonly string[], owedWei: readonly bigint[]): Promise<BuiltTree> {
  if (participantIds.length === 0) return EMPTY;
  const h = await keccak();
  const enc = Buffer.alloc(64 * participantIds.length);
  hashIds(h, participantIds, enc, 64);
  for (let i = 0; i < participantIds.length; i++) writeUint256(enc, 64 * i + 32, owedWei[i]);
  return treeOf(h, enc);
}

/** The tree over leaves given as their abi encodings, 64 bytes each, one after the other. */
function treeOf(h: Keccak, enc: Buffer): BuiltTree {
  const n = enc.length / 64;
  const hashes = Buffer.alloc(32 * n);
  for (let i = 0; i < n; i++) {
    h.init();
    h.update(enc.subarray(64 * i, 64 * i + 64));
    const inner = h.digest("binary");
    h.init();
    h.update(inner);
    hashes.set(h.digest("binary"), 32 * i);
  }
  // Leaf positions sorted by hash, ascending (the library's sortLeaves).
  const order = byLeadingBytes(hashes, 32, n);
  const size = 2 * n - 1;
  const nodes = Buffer.alloc(32 * size);
  const treeIndex = new Int32Array(n);
  for (let k = 0; k < n; k++) {
    const at = size - 1 - k;
    hashes.copy(nodes, 32 * at, 32 * order[k], 32 * order[k] + 32);
    treeIndex[order[k]] = at;
  }
  // A node hashes its two children (adjacent at 2i+1, 2i+2) smaller first.
  const swapped = Buffer.alloc(64);
  for (let i = size - 1 - n; i >= 0; i--) {
    const l = 32 * (2 * i + 1);
    let c = 0;
    for (let k = 0; k < 32 && c === 0; k++) c = nodes[l + k] - nodes[l + 32 + k];
    h.init();
    if (c <= 0) {
      h.update(nodes.subarray(l, l + 64));
    } else {
      nodes.copy(swapped, 0, l + 32, l + 64);
      nodes.copy(swapped, 32, l, l + 32);
      h.update(swapped);
    }
    nodes.set(h.digest("binary"), 32 * i);
  }
  return { root: toHex(nodes.subarray(0, 32)), nodes, treeIndex, encodings: enc };
}

/**
 * The positions of `n` records of `stride` bytes in `buf`, ordered by their first 32 bytes
 * (bytewise, ascending): the first 8 bytes decide nearly always, the whole 32 when they tie.
 */
function byLeadingBytes(buf: Buffer, stride: number, n: number): number[] {
  const hi = new Uint32Array(n);
  const lo = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    hi[i] = buf.readUInt32BE(stride * i);
    lo[i] = buf.readUInt32BE(stride * i + 4);
  }
  const order = Array.from({ length: n }, (_, i) => i);
  order.sort((a, b) => hi[a] - hi[b] || lo[a] - lo[b] || buf.compare(buf, stride * b, stride * b + 32, stride * a, stride * a + 32));
  return order;
}

/** Bytes of one entry of a leaf table: the leaf's abi encoding (participant key, owed wei), then its tree position (int32, big-endian). */
export const LEAF_ENTRY_BYTES = 68;

/**
 * The tree's leaf table (LiabilityProof.leaves): one entry per leaf, sorted by participant key
 * (bytewise, as the database compares bytea), so that a participant's entry is found by binary search.
 */
export function leafTable(tree: BuiltTree): Buffer {
  const enc = tree.encodings;
  const n = enc.length / 64;
  const order = byLeadingBytes(enc, 64, n);
  const out = Buffer.alloc(LEAF_ENTRY_BYTES * n);
  for (let k = 0; k < n; k++) {
    enc.copy(out, LEAF_ENTRY_BYTES * k, 64 * order[k], 64 * order[k] + 64);
    out.writeInt32BE(tree.treeIndex[order[k]], LEAF_ENTRY_BYTES * k + 64);
  }
  return out;
}

/** One entry of a leaf table, read back. */
export function readLeafEntry(entry: Buffer): { participantKey: Hex; owedWei: bigint; treeIndex: number } {
  return {
    participantKey: `0x${entry.toString("hex", 0, 32)}`,
    owedWei: BigInt(`0x${entry.toString("hex", 32, 64)}`),
    treeIndex: entry.readInt32BE(64),
  };
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
