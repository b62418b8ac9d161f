// Referrals you can trust (through the whole pipeline, on the database): a referral created through
// a publishable key is provisional (it blocks no secret-key referral, which supersedes it, pays
// nothing, and is confirmed by the same pair from a secret key), and an event without a referrer
// belongs to the referred user's active referral, not to a newer rejected one.
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { applyReferral } from "../referrals/service";
import { createWebhook } from "../webhooks/service";
import { provisionalBusiness as business } from "../../../tests/support/domain";
import { acceptEvent } from "./service";

const paidTo = async (businessId: string) =>
  (await db.reward.findMany({ where: { businessId, status: "PAID" }, include: { participant: true } })).map((r) => r.participant.externalId);

describe("provisional referrals", () => {
  it("a publishable key's referral pays nothing to a later trusted event and never blocks the honest referrer, who supersedes it", async () => {
    const { scope, browser, honest, attacker } = await business();
    // The attacker attaches the customer to their own code from the browser.
    const planted = await applyReferral(browser, { referralCode: attacker.referralCode, referredUserId: "customer" });
    expect(planted.body).toMatchObject({ status: "PENDING", created: true });
    expect(await db.referral.findFirstOrThrow({ where: { businessId: scope.businessId } })).toMatchObject({ provisional: true });
    // The customer's purchase, sent by the business's server without a referrer, does not pay the attacker.
    const purchase = await acceptEvent(scope, { eventName: "purchase", metadata: { referredUserId: "customer" } });
    expect(purchase.body).toMatchObject({ status: "PROCESSED", reason: "PROVISIONAL_REFERRAL" });
    expect(await paidTo(scope.businessId)).toEqual([]);
    // The honest referral, sent with the secret key, is accepted (not ALREADY_REFERRED) and pays.
    const real = await acceptEvent(scope, { eventName: "purchase", referrer: honest.referralCode, metadata: { referredUserId: "customer" } });
    expect(real.body).toMatchObject({ status: "PROCESSED", reason: null });
    expect(await paidTo(scope.businessId)).toEqual(["honest"]);
    const planted2 = await db.referral.findFirstOrThrow({ where: { businessId: scope.businessId, referrerId: attacker.participantId } });
    expect(planted2).toMatchObject({ status: "REJECTED", reason: "SUPERSEDED" });
  });

  it("is confirmed when the same pair comes with a secret key, with a referral.confirmed webhook", async () => {
    const { scope, browser, honest } = await business();
    await createWebhook(scope.businessId, { url: "https://hooks.example.com/referrals", environment: "TEST" });
    await applyReferral(browser, { referralCode: honest.referralCode, referredUserId: "customer" });
    const confirmed = await applyReferral(scope, { referralCode: honest.referralCode, referredUserId: "customer" });
    expect(confirmed.body).toMatchObject({ status: "PENDING", created: false });
    expect(await db.referral.findFirstOrThrow({ where: { businessId: scope.businessId } })).toMatchObject({ provisional: false });
    const told = await db.webhookMessage.findMany({ where: { businessId: scope.businessId }, orderBy: { createdAt: "asc" } });
    expect(told.map((m) => m.eventType)).toEqual(["referral.created", "referral.confirmed"]);
    expect(JSON.parse(told[1].body)).toMatchObject({ type: "referral.confirmed", data: { status: "PENDING", referrerId: honest.participantId } });
    const purchase = await acceptEvent(scope, { eventName: "purchase", metadata: { referredUserId: "customer" } });
    expect(purchase.body).toMatchObject({ status: "PROCESSED", reason: null });
    expect(await paidTo(scope.businessId)).toEqual(["honest"]);
  });
});

describe("events without a referrer", () => {
  it("belong to the referred user's active referral, not to a newer rejected one", async () => {
    const { scope, honest, attacker } = await business();
    await db.businessConfig.update({ where: { businessId: scope.businessId }, data: { qualifyingEvents: ["purchase"] } });
    await acceptEvent(scope, { eventName: "signup", referrer: honest.referralCode, metadata: { referredUserId: "customer" } });
    // A second code applied to the already-referred customer (the Get started snippet does this): rejected.
    const second = await applyReferral(scope, { referralCode: attacker.referralCode, referredUserId: "customer" });
    expect(second.body).toMatchObject({ status: "REJECTED", reason: "ALREADY_REFERRED" });
    const sale = await acceptEvent(scope, { eventName: "purchase", metadata: { referredUserId: "customer" } });
    const active = await db.referral.findFirstOrThrow({ where: { businessId: scope.businessId, referrerId: honest.participantId } });
    expect(sale.body).toMatchObject({ status: "PROCESSED", reason: null, referralId: active.id });
    expect(await paidTo(scope.businessId)).toEqual(["honest"]);
  });
});
