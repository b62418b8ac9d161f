// In-process fixtures for the unit layer: a business set up through the same domain services the
// routes call (inputs parsed by the routes' own schemas), without HTTP, a build or a chain.
import { randomUUID } from "node:crypto";
import { expect } from "vitest";
import { db } from "../../server/db/client";
import { createApiKey } from "../../server/domain/api-keys/service";
import { updateGeneralConfig, updateSpendConfig } from "../../server/domain/config/service";
import { updateGeneralInput, updateSpendInput } from "../../server/domain/config/schemas";
import { creditLedger, getBalanceWei } from "../../server/domain/ledger/service";
import type { Scope } from "../../server/shared/scope";
import { upsertParticipant } from "../../server/domain/participants/service";
import { updateReferralSettings } from "../../server/domain/referral-settings/service";
import { updateReferralSettingsInput } from "../../server/domain/referral-settings/schemas";
import { acceptEvent } from "../../server/domain/tracking/service";
import type { Environment } from "../../server/shared/environment";
import { ethToWei, weiToDb, weiToEth } from "../../server/shared/money";
import { testBusiness } from "./jobs-fixtures";

let seq = 0;
export const uniqueEmail = (prefix = "user") => `${prefix}-${Date.now()}-${++seq}@example.com`;

/**
 * A business with an API key in `environment`, reward amounts set (SYNC processing unless
 * `general` says otherwise) and, optionally, a pool funded by a FUNDING ledger entry (what a
 * verified deposit writes).
 */
export async function domainBusiness(
  opts: { referralRewardEth?: string; bonusEth?: string; fundEth?: string; general?: Record<string, unknown>; spend?: Record<string, unknown>; settings?: Record<string, unknown>; environment?: Environment } = {},
) {
  const environment = opts.environment ?? "TEST";
  const business = await db.business.create({ data: { name: "Domain test", ownerId: `owner-${randomUUID()}` } });
  const businessId = business.id;
  const key = await createApiKey(businessId, { environment, name: "test" });
  await updateGeneralConfig(businessId, updateGeneralInput.parse({ referralRewardEth: opts.referralRewardEth ?? "0.01", bonusEth: opts.bonusEth ?? "0", eventProcessing: "SYNC", ...opts.general }));
  if (opts.spend) await updateSpendConfig(businessId, updateSpendInput.parse(opts.spend));
  if (opts.settings) await updateReferralSettings(businessId, updateReferralSettingsInput.parse(opts.settings));
  if (opts.fundEth) await fund(businessId, environment, opts.fundEth);
  const scope: Scope = { businessId, environment, apiKeyId: key.apiKeyId };
  return { businessId, scope };
}

export async function fund(businessId: string, environment: Environment, amountEth: string) {
  await db.$transaction((tx) => creditLedger(tx, { businessId, environment, amountWei: ethToWei(amountEth), kind: "FUNDING", txHash: `0x${randomUUID().replaceAll("-", "").padEnd(64, "0")}` }));
}

export async function participant(scope: Scope, body: Record<string, unknown> = {}) {
  return upsertParticipant(scope, { email: uniqueEmail("p"), ...body });
}

/** What POST /track does with a referrer and a new referred user: status and body. */
/** The body is read like a JSON response: the synchronous and queued shapes in one loose type. */
export async function trackReferral(
  scope: Scope,
  referralCode: string,
  opts: { eventName?: string; referredUserEmail?: string; campaign?: string } = {},
): Promise<{ status: number; body: any }> {
  const r = await acceptEvent(scope, {
    eventName: opts.eventName ?? "purchase",
    referrer: referralCode,
    metadata: { referredUserEmail: opts.referredUserEmail ?? uniqueEmail("referred"), ...(opts.campaign ? { campaign: opts.campaign } : {}) },
  });
  return r;
}

export async function balanceEth(businessId: string, environment: Environment = "TEST") {
  const wei = await getBalanceWei(db, businessId, environment);
  expect(wei >= 0n).toBe(true);
  return weiToEth(wei);
}

/**
 * A business that processes events now, pays 0.01 ETH a referral from a funded pool, with two
 * referrers, `honest` and `attacker`; `browser` is its scope as a publishable key has it.
 */
export async function provisionalBusiness() {
  const scope = await testBusiness();
  await db.businessConfig.create({ data: { businessId: scope.businessId, eventProcessing: "SYNC", referralRewardWei: weiToDb(ethToWei("0.01")) } });
  await db.$transaction((tx) => creditLedger(tx, { businessId: scope.businessId, environment: "TEST", amountWei: ethToWei("1"), kind: "FUNDING" }));
  const honest = await upsertParticipant(scope, { userId: "honest" });
  const attacker = await upsertParticipant(scope, { userId: "attacker" });
  return { scope, browser: { ...scope, untrusted: true }, honest, attacker };
}
