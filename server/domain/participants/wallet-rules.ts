// Which addresses may be a participant's payout wallet: one rule for every route that sets a
// wallet (POST /sdk/participants, PATCH /business/participants/:id) and for the payout run.
import { db } from "../../db/client";
import { depositAddressFor } from "../../chain/deposit-address";
import { AppError, notFound } from "../../shared/errors";
import { ENVIRONMENTS } from "../../shared/environment";
import { reservedWalletReason } from "./schemas";

/** The business's own deposit addresses (TEST and LIVE, where derivable): never a participant's wallet. */
function depositAddresses(depositIndex: number): string[] {
  return ENVIRONMENTS.map((e) => depositAddressFor(e, depositIndex)).filter((a): a is NonNullable<typeof a> => a !== null);
}

/**
 * Why `address` cannot be a payout wallet of this business, or null: the reserved low range
 * (reservedWalletReason) or one of the business's own deposit addresses. The payout run asks it too.
 */
export function walletProblem(address: string, depositIndex: number): string | null {
  const reserved = reservedWalletReason(address);
  if (reserved) return reserved;
  const a = address.toLowerCase();
  if (depositAddresses(depositIndex).some((d) => d.toLowerCase() === a)) return "This is one of the business's own deposit addresses: a payout there would pay the pool itself";
  return null;
}

/** Every route that sets a wallet calls this: 400 VALIDATION_ERROR on walletAddress when it cannot be one. */
export async function assertPayoutWallet(businessId: string, address: string | null | undefined): Promise<void> {
  if (!address) return;
  const b = await db.business.findUnique({ where: { id: businessId }, select: { depositIndex: true } });
  if (!b) throw notFound("Business");
  const problem = walletProblem(address, b.depositIndex);
  if (problem) throw new AppError("VALIDATION_ERROR", problem, [{ path: "walletAddress", message: problem }]);
}

