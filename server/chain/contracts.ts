// The project's own Solidity contracts (contracts/*.sol), compiled by scripts/compile-contracts.mjs
// into contracts/build/<Name>.json: each contract's ABI and creation bytecode, for deployment
// (local-deploy.ts, the tests) and for typed calls. ERC-20 reads and transfers use viem's erc20Abi.
import { parseAbi, type Abi, type Hex } from "viem";
import BatchPayoutBuild from "../../contracts/build/BatchPayout.json";
import TestTokenBuild from "../../contracts/build/TestToken.json";
import TestUSDCBuild from "../../contracts/build/TestUSDC.json";

export interface ContractBuild {
  abi: Abi;
  bytecode: Hex;
}

/** An ERC-20 with a public mint (a faucet) and an owner's blacklist: TestToken(name, symbol, decimals). */
export const TestToken: ContractBuild = { abi: TestTokenBuild.abi as Abi, bytecode: TestTokenBuild.bytecode as Hex };
/** The local TEST chain's stablecoin: a TestToken of 6 decimals named USDC. */
export const TestUSDC: ContractBuild = { abi: TestUSDCBuild.abi as Abi, bytecode: TestUSDCBuild.bytecode as Hex };

/** Pays many recipients in one transaction, in ETH (payEth) or an ERC-20 (payToken): the batch payouts' contract (docs/payouts.md). */
export const BatchPayout: ContractBuild = { abi: BatchPayoutBuild.abi as Abi, bytecode: BatchPayoutBuild.bytecode as Hex };

/** The TestToken functions the app and the tests call beyond ERC-20 (typed for viem). */
export const testTokenAbi = parseAbi([
  "function mint(address to, uint256 amount)",
  "function setBlacklisted(address account, bool blacklisted)",
  "function isBlacklisted(address account) view returns (bool)",
]);

/** BatchPayout's functions (typed for viem). */
export const batchPayoutAbi = parseAbi([
  "function payEth(address[] recipients, uint256[] amounts) payable",
  "function payToken(address token, address[] recipients, uint256[] amounts)",
  "error LengthMismatch()",
  "error WrongValue(uint256 sent, uint256 owed)",
  "error TransferRefused(address recipient)",
]);
