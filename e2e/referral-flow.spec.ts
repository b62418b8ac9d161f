// The owner's whole journey: sign up → TEST key → /track and /sdk/referrals/apply over HTTP →
// see them in the dashboard → fund the TEST pool → rewards → review → rotate and revoke.
import { expect, test } from "@playwright/test";
import { readSecret, sdk, signUpInBrowser, snap, uniqueEmail } from "./support";

test("sign up, integrate with a TEST key, see referrals arrive, fund the pool, revoke", async ({ page, request }) => {
  test.setTimeout(180_000);
  await signUpInBrowser(page, { email: uniqueEmail("flow"), businessName: "Flow Outfitters" });
  await expect(page).toHaveURL(/\/dashboard\/get-started$/);

  // Onboarding: a TEST key, its secret inside the snippets, and the first event arriving.
  await page.getByRole("button", { name: "Create test key" }).click();
  const secret = await readSecret(page);
  await expect(page.locator("pre").first()).toContainText(secret);
  const first = await sdk(request, secret, "POST", "/track", { eventName: "signup", metadata: { campaign: "launch" }, source: "e2e" });
  expect(first.status).toBe(200);
  expect(first.body.success).toBe(true);
  await expect(page.getByTestId("first-event")).toContainText("signup", { timeout: 20_000 });
  await snap(page, "get-started-done");

  // A referrer and a referral applied through the key (synchronous path: referredUserId).
  const referrer = await sdk(request, secret, "POST", "/sdk/participants", { userId: "user-alice", email: "alice@example.com", name: "Alice" });
  expect(referrer.status).toBe(200);
  const code = referrer.body.referralCode as string;
  const applied = await sdk(request, secret, "POST", "/sdk/referrals/apply", { referralCode: code, referredUserId: "user-bob", referredUserEmail: "bob@example.com", referredUserName: "Bob", source: "e2e" });
  expect(applied.status).toBe(200);
  expect(applied.body).toMatchObject({ success: true, processedSynchronously: true, queued: false });

  await page.getByRole("link", { name: "API keys" }).first().click();
  const row = page.getByTestId("api-key-row").first();
  await row.getByRole("button", { name: "Referrals" }).click();
  const refRow = page.getByTestId("key-referral-row").filter({ hasText: code });
  await expect(refRow).toContainText("bob@example.com");
  await snap(page, "api-key-referrals");

  // Fund the TEST pool: send a test deposit on the local chain, then verify its hash.
  await page.getByRole("link", { name: "Balance & funding" }).first().click();
  await expect(page.getByTestId("deposit-address")).toHaveText(/^0x[0-9a-fA-F]{40}$/);
  await expect(page.getByTestId("pool-balance")).toHaveText("0 ETH");
  const deposit = page.getByRole("form", { name: "Send a test deposit" });
  await deposit.getByLabel("Amount (ETH)").fill("abc");
  await deposit.getByRole("button", { name: "Send test deposit" }).click();
  await expect(deposit.getByLabel("Amount (ETH)")).toHaveAttribute("aria-invalid", "true");
  await deposit.getByLabel("Amount (ETH)").fill("2.5");
  await deposit.getByRole("button", { name: "Send test deposit" }).click();
  await expect(page.getByTestId("test-deposit-tx")).toBeVisible();
  const verify = page.getByRole("form", { name: "Verify a deposit" });
  await expect(verify.getByLabel("Transaction hash")).toHaveValue(/^0x[0-9a-f]{64}$/);
  await verify.getByRole("button", { name: "Verify and credit" }).click();
  await expect(page.getByTestId("verify-result")).toContainText("2.5 ETH");
  await expect(page.getByTestId("pool-balance")).toHaveText("2.5 ETH");
  // Verifying the same hash again credits nothing.
  await verify.getByRole("button", { name: "Verify and credit" }).click();
  await expect(page.getByText("Already credited", { exact: true })).toBeVisible();
  await expect(page.getByTestId("pool-balance")).toHaveText("2.5 ETH");
  // A malformed hash is refused next to the field.
  await verify.getByLabel("Transaction hash").fill("0x1234");
  await verify.getByRole("button", { name: "Verify and credit" }).click();
  await expect(verify.getByLabel("Transaction hash")).toHaveAttribute("aria-invalid", "true");
  await snap(page, "balance", { mobile: true });

  // Reward rules through the Configuration page: 0.1 ETH per referral, 0.05 bonus, on "purchase".
  await page.getByRole("link", { name: "Configuration" }).first().click();
  const general = page.getByRole("form", { name: "General settings" });
  await general.getByLabel("Referral reward (ETH)").fill("lots");
  await general.getByRole("button", { name: "Save general settings" }).click();
  await expect(general.getByLabel("Referral reward (ETH)")).toHaveAttribute("aria-invalid", "true");
  await general.getByLabel("Referral reward (ETH)").fill("0.1");
  await general.getByLabel("Bonus (ETH)").fill("0.05");
  await general.getByLabel("Qualifying events").fill("purchase");
  await general.getByRole("button", { name: "Save general settings" }).click();
  await expect(page.getByText("General settings saved")).toBeVisible();
  const spend = page.getByRole("form", { name: "Spend limits" });
  await spend.getByLabel("Low-pool alert (ETH)").fill("2.3");
  await spend.getByLabel("Max ETH per user per day").fill("1.5");
  await spend.getByRole("button", { name: "Save spend limits" }).click();
  await expect(page.getByText("Spend limits saved")).toBeVisible();
  await expect(spend.getByLabel("Low-pool alert (ETH)")).toHaveValue("2.3");
  const tierForm = async () => {
    await page.getByRole("button", { name: "Add tier" }).click();
    const f = page.getByRole("form", { name: "New tier" });
    await f.getByLabel("Tier name").fill("Gold");
    await f.getByLabel("From referrals").fill("5");
    await f.getByLabel("Referral reward (ETH)").fill("0.2");
    await f.getByRole("button", { name: "Add tier" }).click();
  };
  await tierForm();
  await expect(page.getByTestId("tier-row").filter({ hasText: "Gold" })).toContainText("5+");
  // Tiers editor: a clashing threshold is refused at its field; edit; delete with confirmation.
  await page.getByRole("button", { name: "Add tier" }).click();
  const silver = page.getByRole("form", { name: "New tier" });
  await silver.getByLabel("Tier name").fill("Silver");
  await silver.getByLabel("From referrals").fill("5");
  await silver.getByLabel("Referral reward (ETH)").fill("0.15");
  await silver.getByRole("button", { name: "Add tier" }).click();
  await expect(silver.getByLabel("From referrals")).toHaveAttribute("aria-invalid", "true");
  await expect(silver.getByText(/already starts at 5/)).toBeVisible();
  await silver.getByLabel("From referrals").fill("2");
  await silver.getByRole("button", { name: "Add tier" }).click();
  await expect(page.getByTestId("tier-row").filter({ hasText: "Silver" })).toContainText("2 – 4");
  await page.getByTestId("tier-row").filter({ hasText: "Silver" }).getByRole("button", { name: "Edit" }).click();
  const edit = page.getByRole("form", { name: "Edit tier Silver" });
  await edit.getByLabel("Referral reward (ETH)").fill("0.12");
  await edit.getByRole("button", { name: "Save tier" }).click();
  await expect(page.getByTestId("tier-row").filter({ hasText: "Silver" })).toContainText("0.12 ETH");
  await page.getByTestId("tier-row").filter({ hasText: "Silver" }).getByRole("button", { name: "Delete" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Delete tier" }).click();
  await expect(page.getByTestId("tier-row")).toHaveCount(1);
  await snap(page, "configuration", { mobile: true });

  // Bob's purchase qualifies his referral: Alice earns 0.1, Bob 0.05, paid from the pool.
  const purchase = await sdk(request, secret, "POST", "/track", { eventName: "purchase", metadata: { referredUserId: "user-bob", campaign: "launch" }, source: "e2e" });
  expect(purchase.status).toBe(200);
  expect(purchase.body.status).toBe("PROCESSED");
  await page.getByRole("link", { name: "Rewards" }).first().click();
  // Earned (status PAID in the API), shown in words: never "PAID".
  await expect(page.getByTestId("reward-row").and(page.locator('[data-status="PAID"]'))).toHaveCount(2);
  await expect(page.getByTestId("ledger-row").filter({ hasText: "REWARD" })).toHaveCount(2);
  await expect(page.getByTestId("ledger-balance")).toHaveText("2.35 ETH");
  await page.getByRole("link", { name: "Balance & funding" }).first().click();
  await expect(page.getByTestId("pool-balance")).toHaveText("2.35 ETH");

  // A flag rule: hold new referrals for review.
  await page.getByRole("link", { name: "Referral rules" }).first().click();
  const rules = page.getByRole("form", { name: "Referral rules" });
  await rules.getByLabel("Blocked email domains").fill("spam.example\nnot a domain");
  await rules.getByRole("button", { name: "Save rules" }).click();
  await expect(rules.getByRole("alert").filter({ hasText: "not: Must be an email domain" })).toBeVisible();
  await expect(rules.getByLabel("Blocked email domains")).toHaveAttribute("aria-invalid", "true");
  await rules.getByLabel("Blocked email domains").fill("spam.example");
  await rules.getByRole("switch", { name: "Hold new referrals for review" }).click();
  await rules.getByRole("button", { name: "Save rules" }).click();
  await expect(page.getByText("Referral rules saved")).toBeVisible();
  await expect(rules.getByRole("switch", { name: "Hold new referrals for review" })).toHaveAttribute("aria-checked", "true");
  await snap(page, "referral-rules", { mobile: true });

  // Dave arrives through Alice's code and buys: the event is held, its rewards wait.
  const held = await sdk(request, secret, "POST", "/track", { eventName: "purchase", referrer: code, metadata: { referredUserId: "user-dave", referredUserName: "Dave" }, source: "e2e" });
  expect(held.status).toBe(200);
  expect(held.body.status).toBe("FLAGGED");
  await page.getByRole("link", { name: "Events" }).first().click();
  await page.getByLabel("Status").selectOption("FLAGGED");
  const flagged = page.getByTestId("event-row").filter({ hasText: "purchase" });
  await expect(flagged).toHaveCount(1);
  await expect(flagged).toHaveAttribute("data-status", "FLAGGED");
  await snap(page, "events-flagged", { mobile: true });
  // The flagged event names both people although Dave was attributed by code and Bob's earlier purchase by referredUserId.
  await expect(flagged).toContainText("Alice → Dave");
  await flagged.getByRole("button", { name: "Approve" }).click();
  // The dialog shows what approval will pay now, reward by reward (daily cap 1.5: Alice's 0.1 fits).
  const preview = page.getByRole("dialog").getByTestId("review-preview-row");
  await expect(preview).toHaveCount(2);
  await expect(preview.first()).toContainText("Referral reward to Alice: 0.1 ETH will be earned");
  await expect(preview.nth(1)).toContainText("Bonus to Dave: 0.05 ETH will be earned");
  await page.getByRole("dialog").getByLabel("Note (optional)").fill("Checked the order");
  await page.getByRole("dialog").getByRole("button", { name: "Approve" }).click();
  await expect(page.getByText(/Event approved\. Referral reward to Alice: 0\.1 ETH earned\. Bonus to Dave: 0\.05 ETH earned\./)).toBeVisible();
  await expect(page.getByTestId("event-row")).toHaveCount(0);
  await page.getByLabel("Status").selectOption("");
  await page.getByRole("button", { name: "Apply", exact: true }).click();
  await expect(page.getByTestId("event-row").filter({ hasText: "purchase" })).toHaveCount(2);
  await expect(page.getByTestId("event-row").and(page.locator('[data-status="FLAGGED"]'))).toHaveCount(0);
  // The approved event's details: its rewards were released and paid.
  await page.getByTestId("event-row").filter({ hasText: code }).getByRole("button", { name: "Details of purchase event" }).click();
  const details = page.getByTestId("event-details");
  await expect(details).toContainText("Checked the order");
  await expect(details.getByText("Earned", { exact: true })).toHaveCount(2);
  await snap(page, "event-details");
  await page.getByRole("dialog").getByRole("button", { name: "Close" }).click();
  await snap(page, "events", { mobile: true });
  // The TEST/LIVE switch filters the page: nothing was sent with a LIVE key.
  await page.getByRole("radio", { name: "Live" }).first().click();
  await expect(page.getByText("No live events yet")).toBeVisible();
  await page.getByRole("radio", { name: "Test" }).first().click();
  await expect(page.getByTestId("event-row")).toHaveCount(3);
  const filters = page.getByRole("form", { name: "Filter events" });
  await filters.getByLabel("Event name").fill("signup");
  await filters.getByRole("button", { name: "Apply", exact: true }).click();
  await expect(page.getByTestId("event-row")).toHaveCount(1);
  const tomorrow = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
  await filters.getByLabel("Event name").fill("");
  await filters.getByLabel("From").fill(tomorrow);
  await filters.getByRole("button", { name: "Apply", exact: true }).click();
  await expect(page.getByText("No events match these filters")).toBeVisible();
  await filters.getByRole("button", { name: "Clear" }).click();
  await expect(page.getByTestId("event-row")).toHaveCount(3);
  // Recording an event from the dashboard runs the /track pipeline.
  await page.getByRole("button", { name: "Record an event" }).click();
  const record = page.getByRole("form", { name: "Record an event" });
  await record.getByLabel("Event name").fill("bad name!");
  await record.getByRole("button", { name: "Record event" }).click();
  await expect(record.getByLabel("Event name")).toHaveAttribute("aria-invalid", "true");
  await record.getByLabel("Event name").fill("newsletter_signup");
  await record.getByRole("button", { name: "Record event" }).click();
  await expect(page.getByTestId("event-row").filter({ hasText: "newsletter_signup" })).toContainText("dashboard");

  await page.getByRole("link", { name: "Balance & funding" }).first().click();
  await expect(page.getByTestId("pool-balance")).toHaveText("2.2 ETH");
  await page.getByRole("link", { name: "Referrals" }).first().click();
  await expect(page.getByTestId("referrals-total")).toHaveText("2");
  await expect(page.getByTestId("top-referrer-row").first()).toContainText(code);
  await snap(page, "referrals", { mobile: true });
  // A manual grant from the Rewards page.
  await page.getByRole("link", { name: "Rewards" }).first().click();
  const grant = page.getByRole("form", { name: "Grant a reward" });
  await grant.getByLabel("Recipient").fill("nobody@example.com");
  await grant.getByLabel("Amount (ETH)").fill("0.05");
  await grant.getByLabel("Reason").fill("Thanks for the feedback");
  await grant.getByRole("button", { name: "Grant reward" }).click();
  await expect(grant.getByLabel("Recipient")).toHaveAttribute("aria-invalid", "true");
  await grant.getByLabel("Recipient").fill(code);
  await grant.getByLabel("Amount (ETH)").fill("-1");
  await grant.getByLabel("Reason").fill("Thanks for the feedback");
  await grant.getByRole("button", { name: "Grant reward" }).click();
  await expect(grant.getByLabel("Amount (ETH)")).toHaveAttribute("aria-invalid", "true");
  await grant.getByLabel("Amount (ETH)").fill("0.05");
  await grant.getByRole("button", { name: "Grant reward" }).click();
  await expect(page.getByTestId("reward-row").filter({ hasText: "MANUAL" })).toContainText("0.05 ETH");
  await expect(page.getByTestId("ledger-balance")).toHaveText("2.15 ETH");
  await snap(page, "rewards", { mobile: true });

  await page.getByRole("link", { name: "Overview" }).first().click();
  await expect(page.getByTestId("balance-TEST")).toContainText("2.15 ETH");
  // The approval took the pool below the 2.3 ETH alert threshold: one alert, dismissable.
  await expect(page.getByText("Low pool balance")).toBeVisible();
  await expect(page.getByTestId("kpi-events")).not.toHaveText("0");
  await snap(page, "overview", { mobile: true });
  await page.getByRole("button", { name: "Dismiss" }).click();
  await expect(page.getByText("Low pool balance")).toHaveCount(0);

  // Rotate without grace: the old secret is refused at once, the new one works; then revoke.
  await page.getByRole("link", { name: "API keys" }).first().click();
  await row.getByRole("button", { name: "Rotate" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Rotate key" }).click();
  const rotated = (await page.getByRole("dialog").getByTestId("api-key-secret").textContent())!.trim();
  await page.getByRole("dialog").getByRole("button", { name: "Done" }).click();
  expect((await sdk(request, secret, "POST", "/track", { eventName: "after-rotate" })).status).toBe(401);
  expect((await sdk(request, rotated, "POST", "/track", { eventName: "after-rotate" })).status).toBe(200);
  await row.getByRole("button", { name: "Revoke" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Revoke key" }).click();
  await expect(row.getByText("REVOKED")).toBeVisible(); // optimistic…
  await expect(page.getByText("Key revoked", { exact: true })).toBeVisible(); // …then confirmed
  const refused = await sdk(request, rotated, "POST", "/track", { eventName: "after-revoke" });
  expect(refused.status).toBe(401);
  expect(refused.body.error.code).toBe("INVALID_API_KEY");
});
