import { z } from "zod";
import { assetTag } from "../../shared/asset";
import { listCursor, listLimit, pageOutput } from "../../shared/list-page";
import { environment } from "../../shared/environment";

const ledgerEntryOutput = z.object({
  ledgerEntryId: z.string(),
  environment,
  kind: z.enum(["FUNDING", "REWARD", "ADJUSTMENT", "GAS", "REVERSAL"]),
  /** Signed: credits positive, debits negative. */
  amountEth: z.string(),
  /** The pool's running balance right after this entry (in the ledger's order, whatever the filter). */
  balanceAfterEth: z.string(),
  txHash: z.string().nullable(),
  rewardId: z.string().nullable(),
  memo: z.string().nullable(),
  createdAt: z.string(),
});

export const listLedgerInput = z.strictObject({
  environment: environment.default("LIVE"),
  kind: z.enum(["FUNDING", "REWARD", "ADJUSTMENT", "GAS", "REVERSAL"]).optional(),
  limit: listLimit,
  cursor: listCursor,
});

export const listLedgerOutput = pageOutput(ledgerEntryOutput).extend({ environment, asset: assetTag, balanceEth: z.string() });

export const verifyLedgerInput = z.strictObject({ environment: environment.default("LIVE") });

/** GET /api/export/ledger: the books as CSV (default), or the hash chain as JSON Lines for `npm run ledger:verify`. */
export const ledgerExportInput = verifyLedgerInput.extend({ format: z.enum(["csv", "jsonl"]).default("csv") });

export const verifyLedgerOutput = z.object({
  /** Entries of the chain checked (up to the head read when verification started). */
  entries: z.number().int(),
  /** Hash of the last entry (null: no entry yet). */
  head: z.string().nullable(),
  ok: z.boolean(),
  /** The first entry whose position or hash does not follow from the entries before it. */
  firstBadEntryId: z.string().nullable(),
});
