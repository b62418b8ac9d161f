// The owner turns withdrawals on in Configuration, and a referrer asks to be paid in their portal: the Withdraw card shows the amount, the minimum and
// the expected arrival, the button is disabled with the reason while the program takes no
// requests, and enabled once it does; the request waits as REQUESTED in the staff's payout queue
// until a run pays it, and the portal then shows it paid with its transaction. axe at 1440 and 390 px.
import { expect, test } from "@playwright/test";
import { expectPageHealthy } from "./a11y";
import { fundTestPool, readSecret, sdk, signUpInBrowser, uniqueEmail } from "./support";

test("the portal's Withdraw button, REQUESTED in the staff's queue, paid by the run", async ({ page, request, baseURL }) => {
  test.setTimeout(240_000);
  await signUpInBrowser(page, { email: uniqueEmail("withdraw"), businessName: "Withdraw Goods" });
  await expect(page).toHaveURL(/\/dashboard\/get-started$/);
  await page.getByRole("button", { name: "Create test key" }).click();
  const secret = await readSecret(page);
  const headers = { origin: baseURL! };
  expect((await page.request.patch("/business/config/general", { data: { eventProcessing: "SYNC", referralRewardEth: "0.01", bonusEth: "0" }, headers })).status()).toBe(200);
  await page.getByRole("link", { name: "Balance & funding" }).last().click();
  await fundTestPool(page);

  const ann = await sdk(request, secret, "POST", "/sdk/participants", { userId: "u-ann", name: "Ann Archer", walletAddress: "0x8ba1f109551bd432803012645ac136ddd64dba72" });
  for (const id of ["w-1", "w-2"]) {
    expect((await sdk(request, secret, "POST", "/sdk/referrals/apply", { referralCode: ann.body.referralCode, referredUserId: id, referredUserEmail: `${id}@example.com` })).status).toBe(200);
    expect((await sdk(request, secret, "POST", "/track", { eventName: "purchase", metadata: { referredUserId: id } })).body.status).toBe("PROCESSED");
  }
  const s = await sdk(request, secret, "POST", "/sdk/participants/portal-sessions", { userId: "u-ann" });
  expect(s.status).toBe(201);
  const portal = await page.context().browser()!.newContext({ baseURL });
  const p = await portal.newPage();
  await p.goto(new URL(s.body.url as string).pathname + new URL(s.body.url as string).search);
  await expect(p).toHaveURL(/\/portal$/);

  // Off by default: the button is disabled, and says why.
  const card = p.getByTestId("withdraw");
  await expect(card.getByTestId("withdraw-amount")).toContainText("0.02 ETH");
  await expect(card.getByTestId("withdraw-reason")).toContainText("does not take withdrawal requests");
  await expect(card.getByRole("button", { name: /^Withdraw/ })).toBeDisabled();
  await expectPageHealthy(p, "Portal with withdrawals off");

  // The owner turns withdrawals on, with a minimum, on Configuration.
  await page.getByRole("link", { name: "Configuration" }).last().click();
  const settings = page.getByRole("form", { name: "Withdrawal settings" });
  await settings.getByRole("switch", { name: "Referrers may ask to be paid" }).click();
  await settings.getByLabel("Minimum withdrawal (ETH)").fill("0.015");
  await settings.getByRole("button", { name: "Save withdrawal settings" }).click();
  await expect(page.getByText("Withdrawal settings saved")).toBeVisible();
  await page.reload();
  await expect(settings.getByRole("switch", { name: "Referrers may ask to be paid" })).toHaveAttribute("aria-checked", "true");
  await expect(settings.getByLabel("Minimum withdrawal (ETH)")).toHaveValue("0.015");
  await expectPageHealthy(page, "Configuration with withdrawal settings");
  await page.getByRole("link", { name: "Balance & funding" }).last().click();
  await p.reload();
  await expect(card.getByTestId("withdraw-minimum")).toContainText("0.015 ETH");
  await expect(card.getByText(/Expected arrival: The payout run starts within 60 seconds/)).toBeVisible();
  const button = card.getByRole("button", { name: /^Withdraw 0\.02 ETH/ });
  await expect(button).toBeEnabled();
  await expectPageHealthy(p, "Portal with withdrawals on");
  await button.click();
  await expect(card.getByText(/Requested: 0\.02 ETH/)).toBeVisible();
  const row = card.getByTestId("withdrawal-row").first();
  await expect(row).toContainText("Requested");
  await expect(card.getByTestId("withdraw-reason")).toContainText("already open");
  await expect(card.getByRole("button", { name: /^Withdraw/ })).toBeDisabled();
  await expectPageHealthy(p, "Portal with a withdrawal requested");

  // The staff's queue shows the request; a run pays it.
  await page.reload();
  const queued = page.getByTestId("queue-row").filter({ hasText: "Ann Archer" });
  await expect(queued).toContainText("Withdrawal requested");
  await expect(page.getByTestId("queue-totals")).toContainText("Withdrawal requested: 1 · 0.02 ETH");
  await expectPageHealthy(page, "Balance with a withdrawal requested");
  await page.getByRole("button", { name: /^Run payouts/ }).click();
  await expect(page.getByTestId("payout-row").first()).toContainText("CONFIRMED", { timeout: 30_000 });

  await p.reload();
  await expect(row).toContainText("Paid");
  await expect(row).toContainText("0.02 ETH");
  await expect(row.getByText(/^0x[0-9a-f]{8}…/)).toBeVisible();
  await expectPageHealthy(p, "Portal with a withdrawal paid");
  await portal.close();
});
