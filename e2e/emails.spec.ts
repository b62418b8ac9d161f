// Emails and the ways into the portal, as the shop owner and the referrer see them: the
// participant page's "Copy portal link" and "Email portal link", the Emails page (the log, a
// preview of the message as its recipient sees it, the settings), the hosted /portal/sign-in
// page and the portal's email preferences. The e2e server has no SMTP_URL: messages are kept
// NOT_CONFIGURED, which the page says. Axe clean and no sideways scroll at 1440 and 390 px.
import { expect, test } from "@playwright/test";
import { expectPageHealthy } from "./a11y";
import { readSecret, sdk, signUpInBrowser, snap, uniqueEmail } from "./support";

test("portal links from the dashboard, the Emails page with a preview and settings, the sign-in page and the portal's preferences", async ({ page, request, browser }) => {
  test.setTimeout(180_000);
  await signUpInBrowser(page, { email: uniqueEmail("mailer"), businessName: "Letterpress Cafe" });
  await expect(page).toHaveURL(/\/dashboard\/get-started$/);
  await page.getByRole("button", { name: "Create test key" }).click();
  const secret = await readSecret(page);
  const referrer = uniqueEmail("rita");
  const p = await sdk(request, secret, "POST", "/sdk/participants", { userId: "u-rita", email: referrer, name: "Rita <Reader>" });
  expect(p.status).toBe(200);

  // The participant page: a single-use link to copy, and the same by email.
  await page.goto(`/dashboard/participants/${p.body.participantId}`);
  await page.getByTestId("copy-portal-link").click();
  const link = (await page.getByTestId("portal-link").locator("span").first().textContent())!.trim();
  expect(link).toMatch(/\/portal\/open\?token=pt_test_/);
  await page.getByTestId("email-portal-link").click();
  await expect(page.getByText(`A portal link is on its way to ${referrer}`)).toBeVisible();
  await expectPageHealthy(page, "participant page with portal links");
  await snap(page, "participant-portal-links");

  // The Emails page: the message, kept NOT_CONFIGURED, previewed in a sandboxed frame.
  await page.goto("/dashboard/emails");
  await expect(page.getByRole("heading", { level: 1, name: "Emails" })).toBeVisible();
  const row = page.getByTestId("email-row").filter({ hasText: "PORTAL_SIGN_IN" }).first();
  await expect(async () => {
    await page.reload();
    await expect(row).toContainText("NOT_CONFIGURED", { timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
  await expect(row).toContainText("[TEST] Your link to Letterpress Cafe's referral portal");
  await expectPageHealthy(page, "emails page");
  await snap(page, "emails", { mobile: true });
  await row.getByRole("button", { name: "Preview" }).click();
  const dialog = page.getByRole("dialog", { name: "Email preview" });
  await expect(dialog.getByTestId("preview-subject")).toHaveText("[TEST] Your link to Letterpress Cafe's referral portal");
  const frame = dialog.frameLocator("iframe");
  await expect(frame.getByText("Hello Rita <Reader>,")).toBeVisible();
  await expect(dialog.locator("iframe")).toHaveAttribute("sandbox", "");
  await snap(page, "emails-preview");
  await dialog.getByRole("button", { name: "Close" }).click();

  // Settings: a referrer kind off, and one of your own.
  const payoutSent = page.getByRole("switch", { name: "Payout sent" });
  await expect(payoutSent).toHaveAttribute("aria-checked", "true");
  await payoutSent.click();
  await expect(payoutSent).toHaveAttribute("aria-checked", "false");
  const lowPool = page.getByRole("switch", { name: "The reward pool is low" });
  await lowPool.click();
  await expect(lowPool).toHaveAttribute("aria-checked", "false");
  await page.reload();
  await expect(page.getByRole("switch", { name: "Payout sent" })).toHaveAttribute("aria-checked", "false");
  await expect(page.getByRole("switch", { name: "The reward pool is low" })).toHaveAttribute("aria-checked", "false");

  // The referrer's side, in a browser of their own.
  const me = await page.request.get("/business/me");
  const businessId = (await me.json()).business.businessId as string;
  const ctx = await browser.newContext();
  const rita = await ctx.newPage();
  await rita.goto(`/portal/sign-in?business=${businessId}`);
  await expect(rita.getByRole("heading", { level: 1, name: "Sign in to your referral portal" })).toBeVisible();
  await expectPageHealthy(rita, "portal sign-in page");
  await snap(rita, "portal-sign-in", { mobile: true });
  await rita.getByLabel("Your email").fill(referrer);
  await rita.getByRole("button", { name: "Email me a link" }).click();
  await expect(rita.getByText("Check your inbox")).toBeVisible();

  await rita.goto(link);
  await expect(rita.getByTestId("portal")).toBeVisible();
  const rewardsMail = rita.getByRole("switch", { name: "Rewards you earn" });
  await expect(rewardsMail).toHaveAttribute("aria-checked", "true");
  await rewardsMail.click();
  await expect(rewardsMail).toHaveAttribute("aria-checked", "false");
  await expectPageHealthy(rita, "portal with email preferences");
  // The link opened once: a second opening finds it spent.
  const again = await ctx.newPage();
  await ctx.clearCookies();
  await again.goto(link);
  await expect(again.getByRole("heading", { name: "Your portal link has expired" })).toBeVisible();
  await ctx.close();
});
