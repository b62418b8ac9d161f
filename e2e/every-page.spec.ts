// Every page, as an owner with data and as a visitor: no serious or critical accessibility
// problems (axe, WCAG 2 A/AA) and no sideways scrolling, at 1440 px and at 390 px.
import { expect, test } from "@playwright/test";
import { expectPageHealthy } from "./a11y";
import { readSecret, sdk, signUpInBrowser, uniqueEmail } from "./support";

test("sign-in and sign-up pages", async ({ page }) => {
  for (const path of ["/sign-in", "/sign-up"]) {
    await page.goto(path);
    await expectPageHealthy(page, path);
  }
});

test("every dashboard page at desktop and phone width", async ({ page, request }) => {
  // Fourteen pages, each checked twice with axe: minutes on a busy machine.
  test.setTimeout(360_000);
  await signUpInBrowser(page, { email: uniqueEmail("a11y"), businessName: "Access Co" });
  await expect(page).toHaveURL(/\/dashboard\/get-started$/);
  await page.getByRole("button", { name: "Create test key" }).click();
  const secret = await readSecret(page);
  const alice = await sdk(request, secret, "POST", "/sdk/participants", { userId: "u-a", email: "alice@example.com", name: "Alice" });
  await sdk(request, secret, "POST", "/sdk/referrals/apply", { referralCode: alice.body.referralCode, referredUserId: "u-b", referredUserEmail: "bob@example.com", referredUserName: "Bob", source: "web" });
  await sdk(request, secret, "POST", "/track", { eventName: "purchase", metadata: { referredUserId: "u-b" }, source: "web" });

  const pages = ["/dashboard", "/dashboard/get-started", "/dashboard/api-keys", "/dashboard/events", "/dashboard/referrals", "/dashboard/participants", "/dashboard/rewards", "/dashboard/balance", "/dashboard/configuration", "/dashboard/referral-settings", "/dashboard/commission-rules", "/dashboard/members", "/dashboard/webhooks", "/dashboard/integrations", "/dashboard/emails"];
  for (const path of pages) {
    await page.goto(path);
    await expect(page.getByRole("heading", { level: 1 }).first()).toBeVisible();
    await expectPageHealthy(page, path);
  }
  // Detail pages.
  await page.goto("/dashboard/referrals");
  await page.getByTestId("referral-row").first().getByRole("link", { name: /open details/ }).click();
  await expect(page.getByTestId("referral-detail")).toBeVisible();
  await expectPageHealthy(page, "referral detail");
  await page.getByRole("link", { name: "Alice" }).first().click();
  await expect(page.getByTestId("participant-detail")).toBeVisible();
  await expectPageHealthy(page, "participant detail");
});
