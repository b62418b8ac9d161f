// Commission rules (issue 27): per business and environment, owner or admin managed, members
// read. What a rule pays is decided by the rules core (rules/commissions.ts); changing or
// deleting a rule never touches rewards already granted (they carry their rule id, base amount
// and rate; a deleted rule is kept, marked deleted, and no longer applies).
import { lockBusiness } from "../../db/business-lock";
import { db } from "../../db/client";
import type { CommissionRule } from "../../db/generated";
import { AppError, notFound } from "../../shared/errors";
import type { Environment } from "../../shared/environment";
import { decimalText, type Currency } from "../../shared/money";
import { wakeWaitingEvents } from "./wake";
import { ruleProblems, type CommissionRuleOutput, type CreateRuleInput, type UpdateRuleInput } from "./schemas";

const MAX_RULES = 50;

function toRuleOutput(r: CommissionRule): CommissionRuleOutput {
  return {
    ruleId: r.id,
    environment: r.environment,
    name: r.name,
    eventName: r.eventName,
    recipient: r.recipient as CommissionRuleOutput["recipient"],
    type: r.type as CommissionRuleOutput["type"],
    percent: r.percent === null ? null : decimalText(r.percent),
    amount: r.amount === null ? null : decimalText(r.amount),
    currency: (r.currency as Currency | null) ?? null,
    durationMonths: r.durationMonths,
    maxRewardsPerReferral: r.maxRewardsPerReferral,
    tierPercents: (r.tierPercents ?? {}) as Record<string, string>,
    enabled: r.enabled,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

export async function listRules(businessId: string, environment: Environment): Promise<CommissionRuleOutput[]> {
  const rows = await db.commissionRule.findMany({ where: { businessId, environment, deletedAt: null }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
  return rows.map(toRuleOutput);
}

/** tierPercents name tiers of this business. */
async function assertTiers(businessId: string, tierPercents: Record<string, string> | undefined) {
  const ids = Object.keys(tierPercents ?? {});
  if (!ids.length) return;
  const found = await db.tier.count({ where: { businessId, id: { in: ids } } });
  if (found !== ids.length) throw new AppError("VALIDATION_ERROR", "tierPercents names a tier this business does not have", [{ path: "tierPercents", message: "Unknown tier id" }]);
}

const invalid = (problems: [string, string][]) =>
  new AppError("VALIDATION_ERROR", "Request validation failed", problems.map(([path, message]) => ({ path, message })));

export async function createRule(businessId: string, input: CreateRuleInput): Promise<CommissionRuleOutput> {
  await assertTiers(businessId, input.tierPercents);
  const row = await db.$transaction(async (tx) => {
    // One creation at a time per business, so that concurrent creations cannot pass the cap together.
    await lockBusiness(tx, businessId);
    const count = await tx.commissionRule.count({ where: { businessId, environment: input.environment, deletedAt: null } });
    if (count >= MAX_RULES) throw new AppError("UNPROCESSABLE", `An environment can have at most ${MAX_RULES} commission rules`);
    return tx.commissionRule.create({
      data: {
        businessId,
        environment: input.environment,
        name: input.name,
        eventName: input.eventName,
        recipient: input.recipient,
        type: input.type,
        percent: input.type === "PERCENT" ? input.percent : null,
        amount: input.type === "FIXED" ? input.amount : null,
        currency: input.type === "FIXED" ? input.currency : null,
        durationMonths: input.durationMonths ?? null,
        maxRewardsPerReferral: input.maxRewardsPerReferral ?? null,
        tierPercents: input.tierPercents ?? {},
        enabled: input.enabled ?? true,
      },
    });
  });
  return toRuleOutput(row);
}

async function ownedRule(businessId: string, ruleId: string) {
  const r = await db.commissionRule.findFirst({ where: { id: ruleId, businessId, deletedAt: null } });
  if (!r) throw notFound("Commission rule");
  return r;
}

export async function updateRule(businessId: string, input: UpdateRuleInput): Promise<CommissionRuleOutput> {
  const r = await ownedRule(businessId, input.ruleId);
  const cur = toRuleOutput(r);
  const type = input.type ?? cur.type;
  const switched = type !== cur.type;
  // Switching type drops the other type's fields unless they are sent.
  const merged = {
    type,
    percent: input.percent !== undefined ? input.percent : switched ? null : cur.percent,
    amount: input.amount !== undefined ? input.amount : switched ? null : cur.amount,
    currency: input.currency !== undefined ? input.currency : switched ? null : cur.currency,
    tierPercents: input.tierPercents !== undefined ? input.tierPercents : switched ? {} : cur.tierPercents,
  };
  const problems = ruleProblems(merged);
  if (problems.length) throw invalid(problems);
  await assertTiers(businessId, input.tierPercents);
  const row = await db.commissionRule.update({
    where: { id: r.id },
    data: {
      name: input.name,
      eventName: input.eventName,
      recipient: input.recipient,
      type,
      percent: merged.percent,
      amount: merged.amount,
      currency: merged.currency,
      tierPercents: merged.tierPercents,
      durationMonths: input.durationMonths,
      maxRewardsPerReferral: input.maxRewardsPerReferral,
      enabled: input.enabled,
    },
  });
  await wakeWaitingEvents(businessId, row.environment);
  return toRuleOutput(row);
}

/** Deletes a rule: it no longer applies nor lists; rewards it granted keep its id. */
export async function deleteRule(businessId: string, ruleId: string): Promise<CommissionRuleOutput> {
  const r = await ownedRule(businessId, ruleId);
  const row = await db.commissionRule.update({ where: { id: r.id }, data: { deletedAt: new Date(), enabled: false } });
  await wakeWaitingEvents(businessId, row.environment);
  return toRuleOutput(row);
}
