// verifyLiabilityProof: checks a published proof of liabilities without trusting the service:
// the EIP-712 signature of the statement by the deposit address, the participant's leaf in the
// Merkle root (OpenZeppelin StandardMerkleTree, leaf encoding ["bytes32","uint256"]), and that the
// deposit address held at least what is owed at the proof's block, read from your own RPC node:
// its ETH, or for a program in a token (proof.asset.tokenAddress) its balanceOf that token.
import { createPublicClient, encodeAbiParameters, erc20Abi, http, isAddressEqual, keccak256, recoverTypedDataAddress, toBytes, concat, type Address, type Hex } from "viem";

/** A proof as GET /proofs/:businessId/:environment/latest answers it. */
export interface LiabilityProof {
  proofId: string;
  businessId: string;
  environment: string;
  root: string;
  totalOwedWei: string;
  participants: number;
  poolBalanceWei: string;
  /** What the amounts count: base units of ETH (tokenAddress null) or of the ERC-20 at tokenAddress. Absent: ETH. */
  asset?: { symbol: string; decimals: number; tokenAddress: string | null };
  blockNumber: number;
  chainId: number;
  ledgerHead: string | null;
  signer: string;
  signature: string;
  covered: boolean;
  createdAt: string;
}

/** A participant's leaf, as GET /portal/api/proof (or the staff route) answers it. */
export interface LiabilityLeaf {
  participantId?: string;
  /** keccak256 of the participant id's UTF-8 bytes. */
  participantKey: string;
  owedWei: string;
}

export interface VerifyLiabilityProofInput {
  proof: LiabilityProof;
  leaf: LiabilityLeaf;
  /** Sibling hashes from the leaf to the root. */
  path: string[];
  /** Your JSON-RPC endpoint of the proof's chain (it must serve balances at past blocks). */
  rpcUrl: string;
  /** The deposit address you expect (as the business publishes it); checked against proof.signer when given. */
  expectedSigner?: string;
}

export interface LiabilityProofVerdict {
  /** Every check passed. */
  ok: boolean;
  /** The statement was signed by proof.signer (and it is expectedSigner when given), on this chain. */
  signatureValid: boolean;
  /** The leaf (and its participant id, when given) is in the root. */
  included: boolean;
  /** The signer's balance at blockNumber, read from rpcUrl (wei). */
  onChainBalanceWei: bigint;
  /** onChainBalanceWei equals the poolBalanceWei the statement claims. */
  balanceMatches: boolean;
  /** totalOwedWei ≤ onChainBalanceWei. */
  covered: boolean;
  /** What failed, in words. */
  problems: string[];
}

const proofTypes = {
  LiabilityProof: [
    { name: "proofId", type: "string" },
    { name: "businessId", type: "string" },
    { name: "environment", type: "string" },
    { name: "root", type: "bytes32" },
    { name: "totalOwedWei", type: "uint256" },
    { name: "participants", type: "uint256" },
    { name: "poolBalanceWei", type: "uint256" },
    { name: "blockNumber", type: "uint256" },
    { name: "ledgerHead", type: "bytes32" },
    { name: "createdAt", type: "string" },
    { name: "covered", type: "bool" },
  ],
} as const;

/** OpenZeppelin's standard leaf: keccak256(keccak256(abi.encode(participantKey, owedWei))). */
export function liabilityLeafHash(leaf: Pick<LiabilityLeaf, "participantKey" | "owedWei">): Hex {
  return keccak256(keccak256(encodeAbiParameters([{ type: "bytes32" }, { type: "uint256" }], [leaf.participantKey as Hex, BigInt(leaf.owedWei)])));
}

/** The root a leaf and its path lead to (pairs hashed in sorted order, as OpenZeppelin's MerkleProof). */
export function liabilityRootOf(leaf: Pick<LiabilityLeaf, "participantKey" | "owedWei">, path: string[]): Hex {
  let node = liabilityLeafHash(leaf);
  for (const sibling of path) {
    const s = sibling.toLowerCase() as Hex;
    node = keccak256(node.toLowerCase() < s ? concat([node, s]) : concat([s, node]));
  }
  return node;
}

export async function verifyLiabilityProof(input: VerifyLiabilityProofInput): Promise<LiabilityProofVerdict> {
  const { proof, leaf, path, rpcUrl } = input;
  const problems: string[] = [];
  const client = createPublicClient({ transport: http(rpcUrl) });

  const chainId = await client.getChainId();
  let signatureValid: boolean;
  if (chainId !== proof.chainId) problems.push(`the RPC serves chain ${chainId}, the proof is for chain ${proof.chainId}`);
  try {
    const recovered = await recoverTypedDataAddress({
      domain: { name: "Referral liability proof", version: "1", chainId: proof.chainId },
      types: proofTypes,
      primaryType: "LiabilityProof",
      message: {
        proofId: proof.proofId,
        businessId: proof.businessId,
        environment: proof.environment,
        root: proof.root as Hex,
        totalOwedWei: BigInt(proof.totalOwedWei),
        participants: BigInt(proof.participants),
        poolBalanceWei: BigInt(proof.poolBalanceWei),
        blockNumber: BigInt(proof.blockNumber),
        ledgerHead: `0x${proof.ledgerHead ?? "0".repeat(64)}`,
        createdAt: proof.createdAt,
        covered: proof.covered,
      },
      signature: proof.signature as Hex,
    });
    signatureValid = isAddressEqual(recovered, proof.signer as Address) && (!input.expectedSigner || isAddressEqual(recovered, input.expectedSigner as Address));
  } catch {
    signatureValid = false;
  }
  if (!signatureValid) problems.push("the signature is not the signer's (or not the expected signer's)");
  if (chainId !== proof.chainId) signatureValid = false;

  const keyOk = leaf.participantId === undefined || keccak256(toBytes(leaf.participantId)) === leaf.participantKey.toLowerCase();
  let included: boolean;
  try {
    included = keyOk && liabilityRootOf(leaf, path) === proof.root.toLowerCase();
  } catch {
    included = false;
  }
  if (!included) problems.push("the leaf and path do not lead to the proof's root");

  const blockNumber = BigInt(proof.blockNumber);
  const token = proof.asset?.tokenAddress;
  const onChainBalanceWei = token
    ? await client.readContract({ address: token as Address, abi: erc20Abi, functionName: "balanceOf", args: [proof.signer as Address], blockNumber })
    : await client.getBalance({ address: proof.signer as Address, blockNumber });
  const balanceMatches = onChainBalanceWei === BigInt(proof.poolBalanceWei);
  if (!balanceMatches) problems.push("the signer's balance at the proof's block is not the poolBalanceWei the proof states");
  const covered = BigInt(proof.totalOwedWei) <= onChainBalanceWei;
  if (!covered) problems.push("the deposit address held less than what is owed at the proof's block");

  return { ok: problems.length === 0, signatureValid, included, onChainBalanceWei, balanceMatches, covered, problems };
}
