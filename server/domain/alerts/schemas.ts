import { z } from "zod";
import { assetTag } from "../../shared/asset";
import { listCursor, listLimit, pageOutput } from "../../shared/list-page";
import { environment } from "../../shared/environment";

export const alertOutput = z.object({
  alertId: z.string(),
  environment,
  kind: z.enum(["LOW_POOL", "REFILL_REQUEST", "WEBHOOK_DISABLED"]),
  message: z.string(),
  /** The asset the amounts are in (the environment's). */
  asset: assetTag,
  balanceEth: z.string(),
  thresholdEth: z.string(),
  /** REFILL_REQUEST: the configured autoRefillAmountEth to deposit. */
  amountEth: z.string().nullable(),
  acknowledgedAt: z.string().nullable(),
  createdAt: z.string(),
});

export const listAlertsInput = z.strictObject({
  environment: environment.default("LIVE"),
  kind: z.enum(["LOW_POOL", "REFILL_REQUEST", "WEBHOOK_DISABLED"]).optional(),
  /** true: only alerts nobody has acknowledged yet. */
  unacknowledged: z.enum(["true", "false"]).optional().transform((v) => v === "true"),
  limit: listLimit,
  cursor: listCursor,
});
export const listAlertsOutput = pageOutput(alertOutput);
export const alertIdInput = z.strictObject({ alertId: z.string().min(1).max(64) });
