// A minimal Chainlink AggregatorV3-compatible price feed for the local chain, hand-assembled (no
// compiler needed). What it does, as Solidity would say it:
//
//   contract TestFeed {
//     int256 answer; uint256 updatedAt;                       // slots 0 and 1
//     function decimals() external pure returns (uint8) { return 8; }
//     function latestRoundData() external view returns (uint80, int256, uint256, uint256, uint80) {
//       return (1, answer, updatedAt, updatedAt, 1);
//     }
//     fallback() external { (answer, updatedAt) = abi.decode(msg.data, (int256, uint256)); } // the test's setter
//   }
//
// Runtime, by offset:
//   00 PUSH1 0 CALLDATALOAD PUSH1 0xe0 SHR           selector
//   06 DUP1 PUSH4 0x313ce567 EQ PUSH1 0x27 JUMPI     decimals()
//   10 DUP1 PUSH4 0xfeaf968c EQ PUSH1 0x32 JUMPI     latestRoundData()
//   1a PUSH1 0 CALLDATALOAD PUSH1 0 SSTORE           otherwise: answer = word 0
//   20 PUSH1 0x20 CALLDATALOAD PUSH1 1 SSTORE        updatedAt = word 1
//   26 STOP
//   27 JUMPDEST PUSH1 8 PUSH1 0 MSTORE PUSH1 0x20 PUSH1 0 RETURN
//   32 JUMPDEST 1 → m[0], SLOAD 0 → m[0x20], SLOAD 1 → m[0x40], SLOAD 1 → m[0x60], 1 → m[0x80], RETURN 0xa0 bytes
import { encodeAbiParameters, type Address, type Hex } from "viem";
import { publicClient, sendTx } from "./chain";

export const FEED_RUNTIME =
  "600035" + "60e01c" + "8063313ce567146027578063feaf968c14603257" + "600035600055" + "602035600155" + "00" + "5b600860005260206000f3" + "5b" + "6001600052" + "600054602052" + "600154604052" + "600154606052" + "6001608052" + "60a06000f3";

/** Deploys a feed (decimals 8) and returns its address. */
export async function deployFeed(): Promise<Address> {
  const len = (FEED_RUNTIME.length / 2).toString(16).padStart(2, "0");
  // init: PUSH1 len PUSH1 12 PUSH1 0 CODECOPY PUSH1 len PUSH1 0 RETURN (12 bytes), then the runtime
  const init = `0x60${len}600c600039${"60" + len}6000f3${FEED_RUNTIME}` as Hex;
  const { receipt } = await sendTx({ data: init, gas: 300_000n });
  if (!receipt.contractAddress) throw new Error("feed deployment failed");
  const code = await publicClient().getCode({ address: receipt.contractAddress });
  if (code !== `0x${FEED_RUNTIME}`) throw new Error(`feed code mismatch: ${code}`);
  return receipt.contractAddress;
}

/** Sets the feed's answer (in its 8 decimals) and its updatedAt (unix seconds). */
export async function setFeed(feed: Address, answer: bigint, updatedAt: number): Promise<void> {
  await sendTx({ to: feed, data: encodeAbiParameters([{ type: "int256" }, { type: "uint256" }], [answer, BigInt(updatedAt)]), gas: 100_000n });
}
