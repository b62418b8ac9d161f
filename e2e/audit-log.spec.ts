// The audit log page (owner): it loads, its entries speak the API's words (ETH amounts, field
// names of the routes), and a business-wide change is listed under either environment's filter.
import { expect, test } from "@playwright/test";
import { expectPageHealthy } from "./a11y";
import { signUpInBrowser, uniqueEmail } from "./support";

test("the audit log lists a business-wide reward change as the API names it, under both environments", async ({ page }) => {
  test.setTimeout(120_000);
  await signUpInBrowser(page, { email: uniqueEmail("auditor"), businessName: "Ledger Bakery" });
  await expect(page).toHaveURL(/\/dashboard\/get-started$/);
  // Two changes through the REST face with the browser's session: the second is the one shown.
  for (const referralRewardEth of ["0.01", "0.02"]) {
    const res = await page.request.patch("/business/config/general", { data: { referralRewardEth } });
    expect(res.status()).toBe(200);
  }

  await page.goto("/dashboard/audit-log");
  await expect(page.getByRole("heading", { level: 1, name: "Audit log" })).toBeVisible();
  const entry = page.getByTestId("audit-entry").filter({ hasText: "config.updateGeneral" }).first();
  await expect(entry).toContainText("referralRewardEth: 0.01 → 0.02");
  await expect(entry).not.toContainText("Wei");
  await expectPageHealthy(page, "audit log");

  const filters = page.getByRole("form", { name: "Filter the audit log" });
  for (const environment of ["TEST", "LIVE"]) {
    await filters.getByLabel("Environment").selectOption(environment);
    await filters.getByRole("button", { name: "Apply" }).click();
    await expect(page.getByTestId("audit-entry").filter({ hasText: "referralRewardEth: 0.01 → 0.02" })).toHaveCount(1);
  }
});
