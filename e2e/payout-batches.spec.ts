// Batch payouts on the dashboard: two referrers whose wallets already exist are paid by one
// batch transaction, and the Balance page's payout list shows them grouped under that
// transaction (accessible, at 390 px too).
import { expect, test, type APIRequestContext } from "@playwright/test";
import { expectPageHealthy } from "./a11y";
import { fundTestPool, readSecret, sdk, signUpInBrowser, snap, uniqueEmail } from "./support";

/** A referral of `code` whose purchase pays the referrer one reward. */
async function earn(request: APIRequestContext, secret: string, code: string) {
  const user = `buyer-${Math.random().toString(36).slice(2)}`;
  expect((await sdk(request, secret, "POST", "/sdk/referrals/apply", { referralCode: code, referredUserId: user, referredUserEmail: `${user}@example.com` })).status).toBe(200);
  const t = await sdk(request, secret, "POST", "/track", { eventName: "purchase", metadata: { referredUserId: user } });
  expect(t.body.status).toBe("PROCESSED");
}

test("a batch's payouts are grouped under its transaction on the Balance page", async ({ page, request }) => {
  test.setTimeout(240_000);
  await signUpInBrowser(page, { email: uniqueEmail("batch"), businessName: "Batch Goods" });
  await expect(page).toHaveURL(/\/dashboard\/get-started$/);
  await page.getByRole("button", { name: "Create test key" }).click();
  const secret = await readSecret(page);
  const amounts = page.getByRole("form", { name: "Test reward amounts" });
  await amounts.getByLabel("Referral reward (ETH)").fill("0.01");
  await amounts.getByLabel("Bonus (ETH)").fill("0");
  await amounts.getByRole("button", { name: "Save test amounts" }).click();
  await expect(page.getByText("Test reward amounts saved")).toBeVisible();

  // Two development accounts of the local chain: funded addresses, cheaper to pay in one batch.
  const dee = await sdk(request, secret, "POST", "/sdk/participants", { userId: "u-dee", name: "Dee Dunn", walletAddress: "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc" });
  const eve = await sdk(request, secret, "POST", "/sdk/participants", { userId: "u-eve", name: "Eve Ernst", walletAddress: "0x90f79bf6eb2c4f870365e785982e1f101e93b906" });
  await page.getByRole("link", { name: "Balance & funding" }).last().click();
  await fundTestPool(page);
  await earn(request, secret, dee.body.referralCode);
  await earn(request, secret, eve.body.referralCode);
  await page.reload();

  await page.getByRole("button", { name: /^Run payouts/ }).click();
  const batch = page.getByTestId("payout-batch-row");
  await expect(batch).toHaveCount(1, { timeout: 30_000 });
  await expect(batch).toContainText("One transaction paid 2 participants");
  await expect(batch).toContainText("CONFIRMED", { timeout: 30_000 });
  await expect(batch).toContainText(/0x[0-9a-f]{64}/);
  const rows = page.getByTestId("payout-row");
  await expect(rows).toHaveCount(2);
  for (const name of ["Dee Dunn", "Eve Ernst"]) await expect(rows.filter({ hasText: name })).toContainText("in the batch above");
  await expectPageHealthy(page, "Balance with a batch payout");
  await snap(page, "balance-payout-batch", { mobile: true });
});
