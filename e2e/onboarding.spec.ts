// Onboarding reaches the first paid reward, each step ticked by the real state.
import { expect, test } from "@playwright/test";
import { fundTestPool, readSecret, sdk, signUpInBrowser, uniqueEmail } from "./support";

test("get started: key, referral code, amounts, funded pool, qualifying event, paid reward, payout on chain", async ({ page, request }) => {
  test.setTimeout(180_000);
  await signUpInBrowser(page, { email: uniqueEmail("onboard"), businessName: "Onboard Co" });
  await expect(page).toHaveURL(/\/dashboard\/get-started$/);
  const step = (title: string) => page.getByRole("heading", { name: new RegExp(title) });
  await expect(step("Set the reward amounts")).not.toContainText("(done)");

  await page.getByRole("button", { name: "Create test key" }).click();
  const secret = await readSecret(page);
  await expect(step("Create a test API key")).toContainText("(done)");
  // The snippets carry the key that works from a server.
  await expect(page.locator("pre").first()).toContainText(secret);

  const alice = await sdk(request, secret, "POST", "/sdk/participants", { userId: "user-alice", email: "alice@example.com", name: "Alice" });
  expect(alice.status).toBe(200);
  await expect(page.getByTestId("onboarding-participant")).toContainText(alice.body.referralCode, { timeout: 20_000 });
  await expect(step("Give a customer a referral code")).toContainText("(done)");
  // The snippet now names Alice's code.
  await expect(page.locator("pre").nth(1)).toContainText(alice.body.referralCode);

  const amounts = page.getByRole("form", { name: "Test reward amounts" });
  await amounts.getByLabel("Referral reward (ETH)").fill("0.1");
  await amounts.getByLabel("Bonus (ETH)").fill("0.05");
  await amounts.getByRole("button", { name: "Save test amounts" }).click();
  await expect(page.getByTestId("onboarding-amounts")).toContainText("0.1 ETH");
  await expect(step("Set the reward amounts")).toContainText("(done)");
  await expect(step("Fund the test pool")).not.toContainText("(done)");

  await page.getByRole("link", { name: "Balance & funding" }).last().click();
  await fundTestPool(page);

  await page.goto("/dashboard/get-started");
  await expect(step("Fund the test pool")).toContainText("(done)");
  await expect(step("See the reward")).not.toContainText("(done)");
  const applied = await sdk(request, secret, "POST", "/sdk/referrals/apply", { referralCode: alice.body.referralCode, referredUserId: "user-bob", referredUserEmail: "bob@example.com", source: "curl" });
  expect(applied.status).toBe(200);
  const purchase = await sdk(request, secret, "POST", "/track", { eventName: "purchase", metadata: { referredUserId: "user-bob" }, source: "curl" });
  expect(purchase.body.status).toBe("PROCESSED");
  await expect(page.getByTestId("first-reward")).toContainText("Alice earned 0.1 ETH for a referral", { timeout: 20_000 });
  await expect(page.getByText("Your first referral reward was earned")).toBeVisible();
  await expect(step("Send a qualifying event")).toContainText("(done)");
  await expect(step("See the reward")).toContainText("(done)");

  // Payout: the owner gives Alice a wallet, runs payouts, and sees the transaction.
  await page.goto("/dashboard/participants");
  await page.getByTestId("participant-row").getByRole("link", { name: "Alice" }).first().click(); // her row, or "referred by" on Bob's
  await expect(page.getByTestId("participant-detail")).toContainText("0.1 ETH");
  const wallet = page.getByRole("form", { name: "Payout wallet" });
  await wallet.getByLabel("Wallet address").fill("not-a-wallet");
  await wallet.getByRole("button", { name: "Save wallet" }).click();
  await expect(wallet.getByRole("alert")).toBeVisible();
  await wallet.getByLabel("Wallet address").fill("0x8ba1f109551bd432803012645ac136ddd64dba72");
  await wallet.getByRole("button", { name: "Save wallet" }).click();
  await expect(wallet.getByLabel("Wallet address")).toHaveValue("0x8ba1f109551bD432803012645Ac136ddd64DBA72");
  await page.getByRole("link", { name: "Balance & funding" }).last().click();
  // The queue above the button loads first: clicking while it grows would land beside the moved button.
  await expect(page.getByTestId("queue-row").filter({ hasText: "Alice" })).toContainText("Ready to pay");
  await page.getByRole("button", { name: /^Run payouts/ }).click();
  const payout = page.getByTestId("payout-row").first();
  await expect(payout).toContainText("CONFIRMED", { timeout: 20_000 });
  await expect(payout).toContainText("0x8ba1f109551bD432803012645Ac136ddd64DBA72");
  await expect(payout).toContainText(/0x[0-9a-f]{64}/);
  await expect(page.getByTestId("solvency")).toContainText("The deposit address holds exactly what is available plus what is owed.");
  // The payouts' CSV, for the environment in view.
  const href = await page.getByTestId("export-payouts").getAttribute("href");
  expect(href).toContain("environment=TEST");
  const csv = await page.request.get(href!);
  expect(csv.status()).toBe(200);
  const lines = (await csv.text()).trim().split("\r\n");
  expect(lines).toHaveLength(2);
  expect(lines[1]).toContain("CONFIRMED");
  expect(lines[1]).toContain("0x8ba1f109551bD432803012645Ac136ddd64DBA72");
});
