// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {TestToken} from "./TestToken.sol";

/// The local TEST chain's dollar stablecoin: 6 decimals and the symbol USDC, like the real one.
contract TestUSDC is TestToken {
    constructor() TestToken("Test USD Coin", "USDC", 6) {}
}
