// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// An ERC-20 for development chains: anyone may mint (a faucet), and the owner may blacklist an
/// address the way regulated stablecoins do, so that a transfer to or from it reverts.
contract TestToken is ERC20, Ownable {
    uint8 private immutable _decimals;
    mapping(address => bool) public isBlacklisted;

    error Blacklisted(address account);

    event BlacklistChanged(address indexed account, bool blacklisted);

    constructor(string memory name_, string memory symbol_, uint8 decimals_) ERC20(name_, symbol_) Ownable(msg.sender) {
        _decimals = decimals_;
    }

    function decimals() public view override returns (uint8) {
        return _decimals;
    }

    /// Development faucet: mints `amount` base units to `to`.
    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }

    function setBlacklisted(address account, bool blacklisted) external onlyOwner {
        isBlacklisted[account] = blacklisted;
        emit BlacklistChanged(account, blacklisted);
    }

    function _update(address from, address to, uint256 value) internal override {
        if (isBlacklisted[from]) revert Blacklisted(from);
        if (isBlacklisted[to]) revert Blacklisted(to);
        super._update(from, to, value);
    }
}
