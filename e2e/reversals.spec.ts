// Money pages a finance team can read: a reward earned, reversed by staff with a reason, then
// shown reversed on Rewards (with the reversals list), the participant page and the referral
// timeline; totals that explain the difference; wei amounts that fit at 390 and 1440 px; and
// Referral rules that refuse what is not a whole number instead of removing the limit.
import { expect, test } from "@playwright/test";
import { expectPageHealthy } from "./a11y";
import { readSecret, sdk, signUpInBrowser, snap, uniqueEmail } from "./support";

test("reverse an earned reward and read it reversed everywhere", async ({ page, request }) => {
  test.setTimeout(240_000);
  await signUpInBrowser(page, { email: uniqueEmail("finance"), businessName: "Refund Goods" });
  await expect(page).toHaveURL(/\/dashboard\/get-started$/);
  await page.getByRole("button", { name: "Create test key" }).click();
  const secret = await readSecret(page);

  // A pool funded to the wei: the long amount must wrap in its card, not widen the page.
  await page.getByRole("link", { name: "Balance & funding" }).first().click();
  const deposit = page.getByRole("form", { name: "Send a test deposit" });
  await deposit.getByLabel("Amount (ETH)").fill("1.000000000000000001");
  await deposit.getByRole("button", { name: "Send test deposit" }).click();
  await expect(page.getByTestId("test-deposit-tx")).toBeVisible();
  await page.getByRole("form", { name: "Verify a deposit" }).getByRole("button", { name: "Verify and credit" }).click();
  // Shown rounded; the exact amount is kept on the amount (hover title and data-exact-eth).
  await expect(page.getByTestId("pool-balance").locator("[data-exact-eth]").first()).toHaveAttribute("data-exact-eth", "1.000000000000000001");

  await page.getByRole("link", { name: "Configuration" }).first().click();
  const general = page.getByRole("form", { name: "General settings" });
  await general.getByLabel("Referral reward (ETH)").fill("0.123456789012345678");
  await general.getByRole("button", { name: "Save general settings" }).click();
  await expect(page.getByText("General settings saved")).toBeVisible();

  const alice = await sdk(request, secret, "POST", "/sdk/participants", { userId: "u-alice", email: "alice@example.com", name: "Alice Archer" });
  const applied = await sdk(request, secret, "POST", "/sdk/referrals/apply", { referralCode: alice.body.referralCode, referredUserId: "u-bob", referredUserEmail: "bob@example.com", referredUserName: "Bob Baker" });
  expect(applied.status).toBe(200);
  expect((await sdk(request, secret, "POST", "/track", { eventName: "purchase", metadata: { referredUserId: "u-bob" } })).status).toBe(200);

  // Rewards: earned and payable (never "PAID"), no stray text above the table.
  await page.getByRole("link", { name: "Rewards" }).first().click();
  const row = page.getByTestId("reward-row").filter({ hasText: "Alice Archer" });
  await expect(row).toHaveAttribute("data-state", "PAYABLE", { timeout: 30_000 });
  await expect(row).toContainText("Payable");
  await expect(page.locator("main")).not.toContainText("return (");
  await expect(page.getByTestId("reward-row").getByText("PAID", { exact: true })).toHaveCount(0);

  // Reverse it: a reason is required, said in words.
  await row.getByRole("button", { name: "Reverse" }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog).toContainText("its ETH goes back to the pool");
  await dialog.getByRole("button", { name: "Reverse reward" }).click();
  await expect(dialog.getByLabel("Reason")).toHaveAttribute("aria-invalid", "true");
  await expect(dialog).toContainText("Say why the reward is reversed");
  await dialog.getByLabel("Reason").fill("Order 1042 refunded");
  await expectPageHealthy(page, "Reverse dialog");
  await dialog.getByRole("button", { name: "Reverse reward" }).click();
  await expect(page.getByText(/Reward reversed: returned to the pool/)).toBeVisible();
  await expect(row).toHaveAttribute("data-state", "REVERSED");
  await expect(row).toContainText("Reversed: Order 1042 refunded");
  await expect(row.getByRole("button", { name: "Reverse" })).toHaveCount(0);
  const reversal = page.getByTestId("reversal-row");
  await expect(reversal).toHaveCount(1);
  await expect(reversal).toContainText("Alice Archer");
  await expect(reversal).toContainText("Order 1042 refunded");
  await expect(reversal).toContainText("Returned to the pool");
  await expect(reversal).toContainText("by dashboard");
  await expectPageHealthy(page, "Rewards with a reversal");
  await snap(page, "rewards-reversed", { mobile: true });

  // The pool got the reward back, to the wei; the long amounts fit at both widths.
  await page.getByRole("link", { name: "Balance & funding" }).first().click();
  // Shown rounded; the exact amount is kept on the amount (hover title and data-exact-eth).
  await expect(page.getByTestId("pool-balance").locator("[data-exact-eth]").first()).toHaveAttribute("data-exact-eth", "1.000000000000000001");
  await expectPageHealthy(page, "Balance");

  // Referrals: earned is rewarded minus reversed; the timeline says reversed, with the reason.
  await page.getByRole("link", { name: "Referrals" }).first().click();
  await expect(page.getByTestId("eth-earned")).toHaveText("0 ETH");
  await expect(page.getByText(/0\.1235 ETH rewarded − 0\.1235 ETH reversed/)).toBeVisible();
  await expectPageHealthy(page, "Referrals");
  await page.getByTestId("referral-row").getByRole("link", { name: /open details/ }).click();
  // The reversal entry (the reward entry beside it carries a "Reversed" badge too).
  const reversedEntry = page.getByTestId("timeline-entry").filter({ hasText: "Order 1042 refunded" });
  await expect(reversedEntry).toHaveCount(1);
  await expect(reversedEntry).toContainText("Order 1042 refunded");
  await expect(page.getByTestId("timeline-entry").filter({ hasText: "Referral reward for Alice Archer" }).first()).toContainText("Reversed");
  await expectPageHealthy(page, "Referral timeline");

  // Alice's page: the reward reads reversed, earned is 0, Bob was referred by Alice.
  await page.getByRole("link", { name: "Participants" }).first().click();
  await page.getByTestId("participant-row").getByRole("link", { name: "Alice Archer" }).first().click();
  const rewardRow = page.getByTestId("participant-reward-row");
  await expect(rewardRow).toHaveAttribute("data-state", "REVERSED");
  await expect(rewardRow).toContainText("Reversed: Order 1042 refunded");
  await expectPageHealthy(page, "Participant with a reversed reward");
});

test("Referral rules refuse a daily limit or window that is not a whole number, in words", async ({ page }) => {
  test.setTimeout(120_000);
  await signUpInBrowser(page, { email: uniqueEmail("rules"), businessName: "Rule Shop" });
  await expect(page).toHaveURL(/\/dashboard\/get-started$/);
  await page.goto("/dashboard/referral-settings");
  const form = page.getByRole("form", { name: "Referral rules" });
  const limit = form.getByLabel("Max referrals per referrer per day");
  const window = form.getByLabel("Attribution window (days)");
  await limit.fill("7");
  await window.fill("30");
  await form.getByRole("button", { name: "Save rules" }).click();
  await expect(page.getByText("Referral rules saved")).toBeVisible();

  for (const bad of ["abc", "5.5", "1e1", "-2"]) {
    await limit.fill(bad);
    await window.fill(bad);
    await form.getByRole("button", { name: "Save rules" }).click();
    await expect(limit).toHaveAttribute("aria-invalid", "true");
    await expect(window).toHaveAttribute("aria-invalid", "true");
    await expect(form).toContainText("Enter the daily limit as a whole number from 1 to 1,000,000, or leave it empty for no limit.");
    await expect(form).toContainText("Enter the window in days as a whole number from 1 to 3,650, or leave it empty for no window.");
  }
  await expectPageHealthy(page, "Referral rules with errors");
  // Nothing was saved: the limits are still there after a reload.
  await page.reload();
  await expect(page.getByRole("form", { name: "Referral rules" }).getByLabel("Max referrals per referrer per day")).toHaveValue("7");
  await expect(page.getByRole("form", { name: "Referral rules" }).getByLabel("Attribution window (days)")).toHaveValue("30");
});
