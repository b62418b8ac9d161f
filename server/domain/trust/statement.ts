// The signed statement of a proof of liabilities: EIP-712 typed data, signed by the environment's
// deposit address (the address that holds the pool). The SDK's verifyLiabilityProof rebuilds the
// same typed data (sdk/src/proofs.ts); docs/trust.md lists the fields.
import type { Hex } from "viem";

const PROOF_DOMAIN_NAME = "Referral liability proof";
const PROOF_DOMAIN_VERSION = "1";

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

export interface ProofStatement {
  proofId: string;
  businessId: string;
  environment: string;
  root: Hex;
  totalOwedWei: bigint;
  participants: number;
  poolBalanceWei: bigint;
  blockNumber: bigint;
  /** The ledger chain's head (64 hex digits, no 0x) or null for an empty ledger (signed as 32 zero bytes). */
  ledgerHead: string | null;
  createdAt: string;
  covered: boolean;
  chainId: number;
}

export function proofTypedData(s: ProofStatement) {
  return {
    domain: { name: PROOF_DOMAIN_NAME, version: PROOF_DOMAIN_VERSION, chainId: s.chainId },
    types: proofTypes,
    primaryType: "LiabilityProof" as const,
    message: {
      proofId: s.proofId,
      businessId: s.businessId,
      environment: s.environment,
      root: s.root,
      totalOwedWei: s.totalOwedWei,
      participants: BigInt(s.participants),
      poolBalanceWei: s.poolBalanceWei,
      blockNumber: s.blockNumber,
      ledgerHead: `0x${s.ledgerHead ?? "0".repeat(64)}` satisfies Hex,
      createdAt: s.createdAt,
      covered: s.covered,
    },
  };
}
