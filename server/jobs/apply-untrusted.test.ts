// A referral applied with a publishable key and queued (only referredUserEmail) stays provisional
// when its SDK_REFERRAL_APPLY job runs, alone or in a batch, as it would have synchronously: it
// never pays, and the honest referrer's secret-key referral supersedes it.
import { describe, expect, it } from "vitest";
import { db } from "../db/client";
import { applyReferral } from "../domain/referrals/service";
import { acceptEvent } from "../domain/tracking/service";
import { provisionalBusiness as business } from "../../tests/support/domain";
import { runJob } from "./execute";
import { runJobs } from "./lanes";

const queuedJobId = (r: { status: number; body: unknown }) => {
  expect(r.status).toBe(202);
  return (r.body as { jobId: string }).jobId;
};

describe("a publishable key's queued apply", () => {
  it.each([
    ["alone (the job's handler)", false],
    ["in a batch (the worker's set-based run)", true],
  ])("stays provisional when its job runs %s", async (_, batched) => {
    const { scope, browser, honest, attacker } = await business();
    const jobs = [queuedJobId(await applyReferral(browser, { referralCode: attacker.referralCode, referredUserEmail: "victim@example.com" }))];
    if (batched) jobs.push(queuedJobId(await applyReferral(browser, { referralCode: attacker.referralCode, referredUserEmail: "other@example.com" })));
    const outcomes = batched ? [...(await runJobs(jobs)).values()] : [await runJob(jobs[0])];
    expect(outcomes.map((o) => o.status)).toEqual(jobs.map(() => "SUCCEEDED"));
    const planted = await db.referral.findMany({ where: { businessId: scope.businessId, referrerId: attacker.participantId } });
    expect(planted).toHaveLength(jobs.length);
    expect(planted.every((r) => r.provisional)).toBe(true);
    // The business's server reports the purchase without a referrer: the attacker earns nothing.
    const purchase = await acceptEvent(scope, { eventName: "purchase", metadata: { referredUserEmail: "victim@example.com" } });
    expect(purchase.body).toMatchObject({ status: "PROCESSED", reason: "PROVISIONAL_REFERRAL" });
    // The honest referrer, named by the secret key, is not ALREADY_REFERRED: paid, the planted one superseded.
    const real = await acceptEvent(scope, { eventName: "purchase", referrer: honest.referralCode, metadata: { referredUserEmail: "victim@example.com" } });
    expect(real.body).toMatchObject({ status: "PROCESSED", reason: null });
    const paid = await db.reward.findMany({ where: { businessId: scope.businessId, status: "PAID" }, include: { participant: true } });
    expect(paid.map((r) => r.participant.externalId)).toEqual(["honest"]);
  });

  it("a secret key's queued apply is trusted as before", async () => {
    const { scope, honest } = await business();
    const job = queuedJobId(await applyReferral(scope, { referralCode: honest.referralCode, referredUserEmail: "customer@example.com" }));
    expect((await runJob(job)).status).toBe("SUCCEEDED");
    expect(await db.referral.findFirstOrThrow({ where: { businessId: scope.businessId } })).toMatchObject({ provisional: false });
  });
});
