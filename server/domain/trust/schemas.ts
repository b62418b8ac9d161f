import { z } from "zod";
import { assetTag } from "../../shared/asset";
import { environment } from "../../shared/environment";
import { listCursor, listLimit, pageOutput } from "../../shared/list-page";

const wei = z.string().regex(/^\d+$/);
const hex32 = z.string().regex(/^0x[0-9a-f]{64}$/);

/** A published proof of liabilities: what anyone may read (no leaf but the caller's own). */
export const proofOutput = z.object({
  proofId: z.string(),
  businessId: z.string(),
  environment,
  /** The asset the amounts are in (the environment's): the pool balance is its balanceOf for a token. */
  asset: assetTag,
  /** Merkle root over every participant's [participantKey, owedWei] (OpenZeppelin StandardMerkleTree). */
  root: hex32,
  /** abi types of a leaf. */
  leafEncoding: z.array(z.string()),
  /** Sum of the leaves, in base units of the environment's asset (wei for ETH; decimal string). */
  totalOwedWei: wei,
  /** Number of leaves. */
  participants: z.number().int(),
  /** The deposit address's balance of the asset at blockNumber (balanceOf for a token), in its base units. */
  poolBalanceWei: wei,
  blockNumber: z.number().int(),
  chainId: z.number().int(),
  /** Ledger chain head (GET /business/ledger/verify's head) when the snapshot was taken; null: empty ledger. */
  ledgerHead: z.string().nullable(),
  ledgerEntries: z.number().int(),
  /** The deposit address that signed the EIP-712 statement. */
  signer: z.string(),
  signature: z.string(),
  /** totalOwedWei ≤ poolBalanceWei. */
  covered: z.boolean(),
  /** MANUAL, PAYOUT (after a payout run) or DAILY. */
  reason: z.enum(["MANUAL", "PAYOUT", "DAILY"]),
  createdAt: z.string(),
});
export type ProofOutput = z.infer<typeof proofOutput>;

/** One participant's leaf and path in a proof. */
export const participantProofOutput = z.object({
  proof: proofOutput,
  leaf: z.object({
    participantId: z.string(),
    /** keccak256 of the participant id's UTF-8 bytes: the leaf's first value. */
    participantKey: hex32,
    /** The leaf's second value: what this participant was owed, in wei. */
    owedWei: wei,
  }),
  /** Sibling hashes from the leaf up to the root (StandardMerkleTree.getProof). */
  path: z.array(hex32),
});
export type ParticipantProofOutput = z.infer<typeof participantProofOutput>;

export const createProofInput = z.strictObject({ environment: environment.default("LIVE") });

export const listProofsInput = z.strictObject({ environment: environment.default("LIVE"), limit: listLimit, cursor: listCursor });
export const listProofsOutput = pageOutput(proofOutput);

export const participantProofInput = z.strictObject({
  participantId: z.string().min(1).max(64),
  /** A proof of the participant's environment; the latest when omitted. */
  proofId: z.string().min(1).max(64).optional(),
});

/** Path parameters of the public routes (GET /proofs/:businessId/:environment/latest|:proofId). */
export const publicProofParams = z.strictObject({
  businessId: z.string().min(1).max(64),
  environment,
  proofId: z.string().min(1).max(64),
});
