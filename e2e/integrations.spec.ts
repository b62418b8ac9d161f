// The Integrations page in a real browser: the owner connects Stripe (the URL to copy, the events
// to select, the secret field), Stripe delivers a signed checkout.session.completed (signed by the
// `stripe` package's test helper), the delivery appears with its outcome, and the referred
// participant's page shows the linked Stripe customer. Axe and no sideways scroll at 1440 and 390 px.
import { randomBytes } from "node:crypto";
import { expect, test } from "@playwright/test";
import Stripe from "stripe";
import { expectPageHealthy } from "./a11y";
import { readSecret, sdk, signUpInBrowser, snap, uniqueEmail } from "./support";

test("owner connects Stripe and sees a delivery appear; the participant shows its Stripe customer", async ({ page, request }) => {
  test.setTimeout(180_000);
  await signUpInBrowser(page, { email: uniqueEmail("stripe"), businessName: "Stripe Shop" });
  await expect(page).toHaveURL(/\/dashboard\/get-started$/);
  await page.getByRole("button", { name: "Create test key" }).click();
  const key = await readSecret(page);
  const ann = await sdk(request, key, "POST", "/sdk/participants", { userId: "ann", email: "ann@example.com", name: "Ann" });
  expect(ann.status).toBe(200);

  await page.getByRole("link", { name: "Integrations" }).first().click();
  await expect(page.getByRole("heading", { level: 1, name: "Integrations" })).toBeVisible();
  await expect(page.getByText("invoice.paid").first()).toBeVisible();
  await expectPageHealthy(page, "integrations, not connected");
  const secret = `whsec_${randomBytes(24).toString("base64url")}`;
  const form = page.getByRole("form", { name: "Connect Stripe" });
  await form.getByLabel("Stripe signing secret").fill(secret);
  await form.getByRole("button", { name: "Connect Stripe" }).click();
  const urlEl = page.getByTestId("stripe-webhook-url");
  await expect(urlEl).toHaveText(/\/integrations\/stripe\/[A-Za-z0-9_-]{32}$/);
  const webhookUrl = (await urlEl.textContent())!.trim();
  await expect(page.getByText("No deliveries yet")).toBeVisible();

  const buyer = uniqueEmail("buyer");
  const customer = `cus_${randomBytes(6).toString("hex")}`;
  const event = { id: `evt_${randomBytes(6).toString("hex")}`, object: "event", type: "checkout.session.completed", livemode: false, created: Math.floor(Date.now() / 1000), data: { object: { id: "cs_test_1", object: "checkout.session", client_reference_id: ann.body.referralCode, customer, customer_details: { email: buyer } } } };
  const payload = JSON.stringify(event);
  const res = await request.fetch(webhookUrl, { method: "POST", headers: { "content-type": "application/json", "stripe-signature": Stripe.webhooks.generateTestHeaderString({ payload, secret }) }, data: payload });
  expect(res.status()).toBe(200);

  const row = page.getByTestId("stripe-delivery");
  await expect(row).toHaveCount(1, { timeout: 20_000 });
  await expect(row).toContainText("checkout.session.completed");
  await expect(row).toContainText("PROCESSED");
  await expectPageHealthy(page, "integrations");
  await snap(page, "integrations", { mobile: true });

  const referred = await sdk(request, key, "POST", "/sdk/participants", { email: buyer });
  await page.goto(`/dashboard/participants/${referred.body.participantId}`);
  await expect(page.getByTestId("stripe-customer")).toHaveText(customer);
  await expectPageHealthy(page, "participant with its Stripe customer");
});
