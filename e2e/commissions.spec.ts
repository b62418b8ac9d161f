// Commissions in the dashboard: a USD price, a 10% rule created through the form (refusing what
// is not a percentage, in words), its preview in words and a simulation; then a purchase tracked
// over HTTP with an amount earns the referrer a commission, visible on Rewards, Events, the
// referrer's page and the Overview; every page checked with axe at 1440 and 390 px.
import { expect, test } from "@playwright/test";
import { expectPageHealthy } from "./a11y";
import { fundTestPool, readSecret, sdk, signUpInBrowser, snap, uniqueEmail } from "./support";

test("create a commission rule, preview it, and see a tracked purchase earn it", async ({ page, request }) => {
  test.setTimeout(240_000);
  await signUpInBrowser(page, { email: uniqueEmail("commissions"), businessName: "Percent Shop" });
  await expect(page).toHaveURL(/\/dashboard\/get-started$/);
  await page.getByRole("button", { name: "Create test key" }).click();
  const secret = await readSecret(page);

  // A funded pool, so that the commission is paid rather than refused.
  await page.getByRole("link", { name: "Balance & funding" }).first().click();
  await fundTestPool(page);

  // Pricing on the Configuration page: a bad rate is refused in words, then 1 ETH = 3,000 USD.
  await page.getByRole("link", { name: "Configuration" }).first().click();
  const pricing = page.getByRole("form", { name: "Pricing" });
  await expect(pricing.getByTestId("prices-now")).toContainText("No price yet");
  await pricing.getByLabel("1 ETH in USD").fill("abc");
  await pricing.getByRole("button", { name: "Save pricing" }).click();
  await expect(pricing.getByLabel("1 ETH in USD")).toHaveAttribute("aria-invalid", "true");
  await expect(pricing).toContainText("Enter the price of 1 ETH in USD as a number above 0");
  await pricing.getByLabel("1 ETH in USD").fill("3000.00");
  await pricing.getByRole("button", { name: "Save pricing" }).click();
  await expect(page.getByText("Pricing saved")).toBeVisible();
  await expect(pricing.getByTestId("prices-now")).toContainText("1 ETH = 3,000 USD");
  await expectPageHealthy(page, "Configuration with pricing");

  // The rule: the form refuses what is not a percentage, previews in words, simulates, creates.
  await page.getByRole("link", { name: "Commission rules" }).first().click();
  await expect(page.getByRole("heading", { level: 1, name: "Commission rules" })).toBeVisible();
  await expect(page.getByText("No test commission rules yet")).toBeVisible();
  await page.getByRole("button", { name: "New rule" }).click();
  const form = page.getByRole("form", { name: "New commission rule" });
  await form.getByLabel("Rule name").fill("10% of purchases");
  for (const bad of ["abc", "0", "100.5", "5.555"]) {
    await form.getByLabel("Percent").fill(bad);
    await form.getByRole("button", { name: "Create rule" }).click();
    await expect(form.getByLabel("Percent")).toHaveAttribute("aria-invalid", "true");
    await expect(form).toContainText("Enter the percentage as a number above 0 and at most 100");
  }
  await form.getByLabel("Max rewards per referral").fill("5.5");
  await form.getByLabel("Percent").fill("10");
  await form.getByRole("button", { name: "Create rule" }).click();
  await expect(form).toContainText("Enter the maximum number of rewards per referral as a whole number");
  await form.getByLabel("Max rewards per referral").fill("12");
  await form.getByLabel("Duration (months)").fill("12");
  await expect(form.getByTestId("rule-preview")).toContainText("A 100.00 USD purchase pays the referrer 0.003333 ETH at 1 ETH = 3,000 USD.");
  await expect(form.getByTestId("rule-preview")).toContainText("for 12 months after the referral qualifies, at most 12 times per referral");
  await form.getByRole("button", { name: "Simulate" }).click();
  await expect(form.getByTestId("simulation-result")).toContainText("No event of the range would have earned a reward");
  await expectPageHealthy(page, "Commission rule form");
  await form.getByRole("button", { name: "Create rule" }).click();
  await expect(page.getByText("Rule 10% of purchases created")).toBeVisible();
  const row = page.getByTestId("commission-rule-row");
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("10% of each purchase to the referrer");
  await expect(row).toContainText("Enabled");

  // A referred customer's purchase with an amount, tracked over HTTP with the secret key.
  const alice = await sdk(request, secret, "POST", "/sdk/participants", { userId: "u-alice", email: "alice@example.com", name: "Alice Archer" });
  expect(alice.status).toBe(200);
  expect((await sdk(request, secret, "POST", "/sdk/referrals/apply", { referralCode: alice.body.referralCode, referredUserId: "u-bob", referredUserEmail: "bob@example.com", referredUserName: "Bob Baker" })).status).toBe(200);
  const tracked = await sdk(request, secret, "POST", "/track", { eventName: "purchase", amount: "100.00", currency: "USD", metadata: { referredUserId: "u-bob" } });
  expect(tracked.status).toBe(200);

  // Rewards: Alice's commission, 10% of 100 USD at 3,000 USD, rounded down to the wei.
  await page.getByRole("link", { name: "Rewards" }).first().click();
  const commission = page.getByTestId("reward-row").filter({ hasText: "Alice Archer" }).filter({ hasText: "Commission" });
  await expect(commission).toHaveCount(1, { timeout: 30_000 });
  // Rounded for reading, beside its USD value; the exact amount on hover.
  await expect(commission).toContainText("0.003333 ETH ≈ 10.00 USD");
  await expect(commission.locator("[data-exact-eth]").first()).toHaveAttribute("title", "0.003333333333333333 ETH");
  await expect(commission).toContainText("1 ETH = 3,000 USD");
  await expectPageHealthy(page, "Rewards with a commission");

  // Events: the amount and its currency.
  await page.getByRole("link", { name: "Events" }).first().click();
  const purchase = page.getByTestId("event-row").filter({ hasText: "purchase" });
  await expect(purchase).toContainText("100.00 USD");
  await purchase.getByRole("button", { name: "Details of purchase event" }).click();
  await expect(page.getByTestId("event-amount")).toHaveText("100.00 USD");
  await page.getByRole("dialog").getByRole("button", { name: "Close" }).click();

  // The referrer's page: revenue from her referrals and the commission she earned.
  await page.goto(`/dashboard/participants/${alice.body.participantId}`);
  const mine = page.getByTestId("referrer-commissions");
  await expect(mine.getByTestId("revenue-row")).toContainText("100.00 USD");
  await expect(mine.getByTestId("commissions-eth")).toHaveText("0.003333 ETH ≈ 10.00 USD");
  await expect(mine.getByTestId("commissions-count")).toHaveText("in 1 reward");
  await expect(page.getByTestId("participant-reward-row").getByTestId("reward-basis")).toHaveText("from 100.00 USD at 1 ETH = 3,000 USD (fixed rate)");
  await expectPageHealthy(page, "Referrer with a commission");

  // Overview: revenue attributed and commissions granted in the last 30 days.
  await page.getByRole("link", { name: "Overview" }).first().click();
  const overview = page.getByTestId("commission-analytics");
  await expect(overview.getByTestId("revenue-row")).toContainText("100.00 USD");
  await expect(overview.getByTestId("commissions-eth")).toHaveText("0.003333 ETH ≈ 10.00 USD");

  // The stored rule tried on past events from its row (open to members too): the purchase counts.
  await page.getByRole("link", { name: "Commission rules" }).first().click();
  await row.getByRole("button", { name: "Try 10% of purchases on past events" }).click();
  await page.getByRole("button", { name: "Simulate" }).click();
  await expect(page.getByTestId("simulation-total")).toHaveText("0.003333 ETH ≈ 10.00 USD");
  await expectPageHealthy(page, "Commission rule tried on past events");
  await row.getByRole("button", { name: "Try 10% of purchases on past events" }).click();

  // Disable, then the rule list as it reads at both widths.
  await row.getByRole("button", { name: "Disable 10% of purchases" }).click();
  await expect(row).toContainText("Disabled");
  await expectPageHealthy(page, "Commission rules");
  await snap(page, "commission-rules", { mobile: true });
});

test("a FIXED amount above the pool is saved only once confirmed; one above the bound is refused in words", async ({ page }) => {
  test.setTimeout(120_000);
  await signUpInBrowser(page, { email: uniqueEmail("fixed-cap"), businessName: "Fixed Shop" });
  await expect(page).toHaveURL(/\/dashboard\/get-started$/);
  await page.goto("/dashboard/commission-rules");
  await page.getByRole("button", { name: "New rule" }).click();
  const form = page.getByRole("form", { name: "New commission rule" });
  await form.getByLabel("Rule name").fill("Big bonus");
  await form.getByLabel("Commission type").selectOption("FIXED");
  await form.getByLabel("Currency").selectOption("ETH");
  await form.getByLabel("Amount").fill("5000");
  await form.getByRole("button", { name: "Create rule" }).click();
  await expect(form.getByLabel("Amount")).toHaveAttribute("aria-invalid", "true");
  await expect(form).toContainText("at most 100 ETH");

  // The empty test pool holds less than 5 ETH: the form asks first; Cancel saves nothing.
  await form.getByLabel("Amount").fill("5");
  await form.getByRole("button", { name: "Create rule" }).click();
  const confirm = page.getByRole("dialog", { name: "Pay more than the pool holds?" });
  await expect(confirm).toContainText("Each purchase would pay 5 ETH, more than the test pool holds now (0 ETH)");
  await expectPageHealthy(page, "Commission above the pool");
  await confirm.getByRole("button", { name: "Cancel" }).click();
  await expect(page.getByTestId("commission-rule-row")).toHaveCount(0);
  await form.getByRole("button", { name: "Create rule" }).click();
  await page.getByRole("dialog", { name: "Pay more than the pool holds?" }).getByRole("button", { name: "Save anyway" }).click();
  await expect(page.getByText("Rule Big bonus created")).toBeVisible();
  await expect(page.getByTestId("commission-rule-row")).toHaveCount(1);
});
