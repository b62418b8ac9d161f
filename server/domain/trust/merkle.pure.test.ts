// The fast builder against OpenZeppelin's StandardMerkleTree: same root, same positions, same
// paths, for trees of every small size and random amounts (fast-check, seeded: replayable).
import { StandardMerkleTree } from "@openzeppelin/merkle-tree";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildParticipantTree, buildTree, LEAF_ENCODING, participantKey, participantKeys, pathIndices } from "./merkle";

const hex32 = (b: Buffer, i: number) => `0x${b.subarray(32 * i, 32 * i + 32).toString("hex")}`;

describe("liability Merkle tree", () => {
  it("matches StandardMerkleTree.of: root, tree positions and every path", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 30 }), { minLength: 1, maxLength: 40 }),
        fc.array(fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }), { minLength: 40, maxLength: 40 }),
        async (ids, amounts) => {
          const leaves = ids.map((id, i) => ({ key: participantKey(id), owedWei: amounts[i] }));
          const ours = await buildTree(leaves);
          const oz = StandardMerkleTree.of(leaves.map((l) => [l.key, l.owedWei.toString()]), [...LEAF_ENCODING]);
          expect(ours.root).toBe(oz.root);
          for (let i = 0; i < leaves.length; i++) {
            const path = pathIndices(ours.treeIndex[i]).map((j) => hex32(ours.nodes, j));
            expect(path).toEqual(oz.getProof(i));
            expect(StandardMerkleTree.verify(ours.root, [...LEAF_ENCODING], [leaves[i].key, leaves[i].owedWei.toString()], path)).toBe(true);
          }
        },
      ),
      { seed: 30, numRuns: 60 },
    );
  });

  it("a changed amount or a foreign leaf does not verify", async () => {
    const leaves = ["a", "b", "c"].map((id, i) => ({ key: participantKey(id), owedWei: BigInt(i + 1) * 10n ** 15n }));
    const t = await buildTree(leaves);
    const path = pathIndices(t.treeIndex[1]).map((j) => hex32(t.nodes, j));
    expect(StandardMerkleTree.verify(t.root, [...LEAF_ENCODING], [leaves[1].key, leaves[1].owedWei.toString()], path)).toBe(true);
    expect(StandardMerkleTree.verify(t.root, [...LEAF_ENCODING], [leaves[1].key, (leaves[1].owedWei + 1n).toString()], path)).toBe(false);
    expect(StandardMerkleTree.verify(t.root, [...LEAF_ENCODING], [participantKey("z"), leaves[1].owedWei.toString()], path)).toBe(false);
  });

  it("participantKeys (batch, WASM keccak) equals participantKey (viem) for any id", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string({ maxLength: 40, unit: "binary" }), { maxLength: 20 }), async (ids) => {
        expect(await participantKeys(ids)).toEqual(ids.map(participantKey));
      }),
      { seed: 30, numRuns: 50 },
    );
  });

  it("buildParticipantTree (ids hashed in place) builds the same tree as buildTree of their participant keys", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.oneof(fc.string({ minLength: 1, maxLength: 30 }), fc.string({ minLength: 1, maxLength: 30, unit: "binary" })), { minLength: 1, maxLength: 40 }),
        fc.array(fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }), { minLength: 40, maxLength: 40 }),
        async (ids, amounts) => {
          const owed = ids.map((_, i) => amounts[i]);
          const byIds = await buildParticipantTree(ids, owed);
          const byKeys = await buildTree(ids.map((id, i) => ({ key: participantKey(id), owedWei: owed[i] })));
          expect(byIds.root).toBe(byKeys.root);
          expect(byIds.nodes.equals(byKeys.nodes)).toBe(true);
          expect(Array.from(byIds.treeIndex)).toEqual(Array.from(byKeys.treeIndex));
        },
      ),
      { seed: 30, numRuns: 60 },
    );
  });

  it("no leaves: a zero root", async () => {
    expect((await buildTree([])).root).toBe(`0x${"00".repeat(32)}`);
    expect((await buildParticipantTree([], [])).root).toBe(`0x${"00".repeat(32)}`);
  });
});
