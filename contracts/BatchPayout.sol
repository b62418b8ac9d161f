// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

/// Pays many recipients in one transaction (Disperse-style), in ETH or in one ERC-20. It holds
/// nothing and has no owner: ETH goes on with the call that brings it, and tokens move straight
/// from the caller to each recipient (the caller approves this contract once). A recipient that
/// refuses reverts the whole batch, so a batch pays everyone or no one.
contract BatchPayout {
    using SafeERC20 for IERC20;

    error LengthMismatch();
    error WrongValue(uint256 sent, uint256 owed);
    error TransferRefused(address recipient);

    /// Sends amounts[i] wei to recipients[i]; msg.value must be their exact sum.
    function payEth(address[] calldata recipients, uint256[] calldata amounts) external payable {
        uint256 n = recipients.length;
        if (amounts.length != n) revert LengthMismatch();
        uint256 total;
        for (uint256 i; i < n; ) {
            address to = recipients[i];
            uint256 amount = amounts[i];
            total += amount;
            bool ok;
            assembly ("memory-safe") {
                ok := call(gas(), to, amount, 0, 0, 0, 0)
            }
            if (!ok) revert TransferRefused(to);
            unchecked {
                ++i;
            }
        }
        if (total != msg.value) revert WrongValue(msg.value, total);
    }

    /// Moves amounts[i] of `token` from the caller to recipients[i] (the caller's allowance to this contract).
    function payToken(IERC20 token, address[] calldata recipients, uint256[] calldata amounts) external {
        uint256 n = recipients.length;
        if (amounts.length != n) revert LengthMismatch();
        for (uint256 i; i < n; ) {
            token.safeTransferFrom(msg.sender, recipients[i], amounts[i]);
            unchecked {
                ++i;
            }
        }
    }
}
