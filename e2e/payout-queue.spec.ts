// Payout settings and the payout queue: the owner sets the holding period and minimum payout on
// Configuration, the Balance page's queue says who is ready, below the minimum, without a wallet
// or on hold until when, a run pays the ready one (named in the payouts table), and a run with
// nothing payable says why.
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

test("payout settings on Configuration; the Balance page's queue says who is paid and why not", async ({ page, request }) => {
  test.setTimeout(240_000);
  await signUpInBrowser(page, { email: uniqueEmail("queue"), businessName: "Queue Goods" });
  await expect(page).toHaveURL(/\/dashboard\/get-started$/);
  await page.getByRole("button", { name: "Create test key" }).click();
  const secret = await readSecret(page);
  const amounts = page.getByRole("form", { name: "Test reward amounts" });
  await amounts.getByLabel("Referral reward (ETH)").fill("0.01");
  await amounts.getByLabel("Bonus (ETH)").fill("0");
  await amounts.getByRole("button", { name: "Save test amounts" }).click();
  await expect(page.getByText("Test reward amounts saved")).toBeVisible();

  // Payout settings: a bad holding period is refused in words; then a minimum of 0.015 ETH.
  await page.getByRole("link", { name: "Configuration" }).last().click();
  const settings = page.getByRole("form", { name: "Payout settings" });
  await settings.getByLabel("Holding period (days)").fill("abc");
  await settings.getByRole("button", { name: "Save payout settings" }).click();
  await expect(settings.getByText("Enter a whole number of days from 0 to 90")).toBeVisible();
  await settings.getByLabel("Holding period (days)").fill("0");
  await settings.getByLabel("Minimum payout (ETH)").fill("0.015");
  await settings.getByLabel("Reversal events").fill("refund");
  await settings.getByRole("button", { name: "Save payout settings" }).click();
  await expect(page.getByText("Payout settings saved")).toBeVisible();
  await page.reload();
  await expect(settings.getByLabel("Minimum payout (ETH)")).toHaveValue("0.015");
  await expect(settings.getByLabel("Reversal events")).toHaveValue("refund");
  await expectPageHealthy(page, "Configuration");

  // Ann (wallet) earns twice, Cat (wallet) once, Ben (no wallet) once.
  const ann = await sdk(request, secret, "POST", "/sdk/participants", { userId: "u-ann", name: "Ann Archer", walletAddress: "0x8ba1f109551bd432803012645ac136ddd64dba72" });
  const cat = await sdk(request, secret, "POST", "/sdk/participants", { userId: "u-cat", name: "Cat Cooper", walletAddress: "0x70997970c51812dc3a010c7d01b50e0d17dc79c8" });
  const ben = await sdk(request, secret, "POST", "/sdk/participants", { userId: "u-ben", name: "Ben Baker" });
  // The zero address is no wallet.
  expect((await sdk(request, secret, "POST", "/sdk/participants", { userId: "u-ben", walletAddress: "0x0000000000000000000000000000000000000000" })).status).toBe(400);

  await page.getByRole("link", { name: "Balance & funding" }).last().click();
  await fundTestPool(page);
  await earn(request, secret, ann.body.referralCode);
  await earn(request, secret, ann.body.referralCode);
  await earn(request, secret, cat.body.referralCode);
  await earn(request, secret, ben.body.referralCode);

  await page.reload();
  const rows = page.getByTestId("queue-row");
  await expect(rows).toHaveCount(3);
  await expect(rows.nth(0)).toContainText("Ann Archer");
  await expect(rows.nth(0)).toContainText("Ready to pay");
  await expect(rows.nth(1)).toContainText("Cat Cooper");
  await expect(rows.nth(1)).toContainText("Below the minimum");
  await expect(rows.nth(1)).toContainText("below the minimum payout of 0.015 ETH");
  await expect(rows.nth(2)).toContainText("Ben Baker");
  await expect(rows.nth(2)).toContainText("No wallet");
  await expect(page.getByTestId("queue-totals")).toContainText("Ready to pay: 1 · 0.02 ETH");
  await expectPageHealthy(page, "Balance with a payout queue");
  await snap(page, "balance-payout-queue", { mobile: true });

  // A run pays Ann, named in the payouts table; the queue keeps Cat and Ben.
  await page.getByRole("button", { name: /^Run payouts/ }).click();
  const payout = page.getByTestId("payout-row").first();
  await expect(payout).toContainText("CONFIRMED", { timeout: 30_000 });
  await expect(payout).toContainText("Ann Archer");
  await expect(rows).toHaveCount(2);

  // Nothing payable now: the run says why.
  await page.getByRole("button", { name: /^Run payouts/ }).click();
  await expect(page.getByText("Nothing to pay: 1 below the minimum payout of 0.015 ETH, 1 without a wallet.")).toBeVisible();

  // A holding period: Ann's next reward waits, and the queue says until when.
  await page.getByRole("link", { name: "Configuration" }).last().click();
  await settings.getByLabel("Holding period (days)").fill("3");
  await settings.getByRole("button", { name: "Save payout settings" }).click();
  await expect(page.getByText("Payout settings saved")).toBeVisible();
  await earn(request, secret, ann.body.referralCode);
  await page.getByRole("link", { name: "Balance & funding" }).last().click();
  const held = rows.filter({ hasText: "Ann Archer" });
  await expect(held).toContainText("On hold");
  await expect(held).toContainText(/On hold until .+ \(holding period of 3 days\)/);
  await expectPageHealthy(page, "Balance with rewards on hold");
});
