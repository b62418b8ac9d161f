// The bonusRequiresWallet rule (per-environment config): with it on, a referred customer who has
// no payout wallet when their qualifying event is decided is granted no customer bonus.

/** True when the customer's bonus may be granted: the setting is off, or the customer has a wallet. */
export const bonusGrantable = (cfg: { bonusRequiresWallet?: boolean }, customer: { walletAddress: string | null } | undefined): boolean => !cfg.bonusRequiresWallet || !!customer?.walletAddress;
