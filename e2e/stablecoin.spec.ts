// A program in USDC (issue 47), in a real Chromium on the local chain: the owner chooses USDC on
// Get started, funds the test pool with "send test deposit" (which mints the test stablecoin the
// app deployed), and a referred customer's 19.99 USD purchase pays the referrer a 10 % commission.
// The balance page (with the payouts), the rewards page, the overview and the referrer's portal show every program amount in
// USDC and never in ETH (gas, paid in ETH outside the pool, is the one ETH figure); axe finds
// nothing serious at 1440 and 390 px and nothing scrolls sideways.
import { expect, test, type Locator, type Page } from "@playwright/test";
import { expectPageHealthy } from "./a11y";
import { readSecret, sdk, signUpInBrowser, snap, uniqueEmail } from "./support";

/** The area's text without its gas figures (`data-gas`: the one amount a token program states in ETH). */
async function programText(area: Locator): Promise<string> {
  return area.evaluate((el) => {
    const copy = el.cloneNode(true) as HTMLElement;
    for (const gas of copy.querySelectorAll("[data-gas]")) gas.remove();
    return copy.textContent ?? "";
  });
}

/** No program amount in ETH: no figure followed by "ETH", no "ETH" column or label. */
async function expectNoEth(area: Locator, what: string) {
  const text = await programText(area);
  expect(text, `${what} shows an amount in ETH`).not.toMatch(/\d\s*ETH\b/);
  expect(text, `${what} names ETH`).not.toMatch(/\bETH\b/);
}

async function openPortal(page: Page, url: string, baseURL: string) {
  const ctx = await page.context().browser()!.newContext({ baseURL });
  const p = await ctx.newPage();
  const u = new URL(url);
  await p.goto(u.pathname + u.search);
  await expect(p).toHaveURL(/\/portal$/);
  return { p, close: () => ctx.close() };
}

test("a USDC program: chosen on Get started, funded by a test deposit, a commission in USDC on every page and in the portal", async ({ page, request, baseURL }) => {
  test.setTimeout(300_000);
  const headers = { origin: baseURL! };
  await signUpInBrowser(page, { email: uniqueEmail("usdc"), businessName: "Dollar Goods" });
  await expect(page).toHaveURL(/\/dashboard\/get-started$/);

  // Choose USDC: the test stablecoin the app deployed on the local chain.
  const choice = page.getByRole("group", { name: "What the test program pays in" });
  // A controlled choice: it is checked once the server has saved it.
  await choice.getByRole("radio", { name: /^USDC/ }).click();
  await expect(page.getByText("The test program pays in USDC")).toBeVisible();
  await expect(choice.getByRole("radio", { name: /^USDC/ })).toBeChecked();
  await page.getByRole("button", { name: "Create test key" }).click();
  const secret = await readSecret(page);

  // Rewards in USDC: a referral reward, and 10 % of each purchase priced at USD 1 per USDC.
  expect((await page.request.patch("/business/config/general", { data: { environment: "TEST", eventProcessing: "SYNC", referralRewardEth: "0.5", bonusEth: "0" }, headers })).status()).toBe(200);
  expect((await page.request.patch("/business/config/pricing", { data: { environment: "TEST", rates: { USD: "1" } }, headers })).status()).toBe(200);
  const rule = await page.request.post("/business/commission-rules", { data: { environment: "TEST", name: "Ten percent", eventName: "purchase", recipient: "REFERRER", type: "PERCENT", percent: "10" }, headers });
  expect(rule.status(), await rule.text()).toBe(201);

  // Fund 1,000 USDC with "send test deposit" and verify it.
  await page.goto("/dashboard/balance");
  await expect(page.getByText("Mints test USDC on the local development chain to your test deposit address.")).toBeVisible();
  const deposit = page.getByRole("form", { name: "Send a test deposit" });
  await deposit.getByLabel("Amount (USDC)").fill("1000");
  await deposit.getByRole("button", { name: "Send test deposit" }).click();
  await expect(page.getByTestId("test-deposit-tx")).toBeVisible();
  await page.getByRole("form", { name: "Verify a deposit" }).getByRole("button", { name: "Verify and credit" }).click();
  await expect(page.getByTestId("pool-balance")).toContainText("1,000 USDC");

  // A referrer, a customer they referred, and the customer's purchase of 19.99 USD.
  const ann = await sdk(request, secret, "POST", "/sdk/participants", { userId: "u-ann", email: "ann@example.com", name: "Ann Archer", walletAddress: "0x00000000000000000000000000000000000a11ce" });
  expect(ann.status, JSON.stringify(ann.body)).toBe(200);
  const bo = uniqueEmail("bo");
  const signup = await sdk(request, secret, "POST", "/track", { eventName: "signup", referrer: ann.body.referralCode, metadata: { referredUserEmail: bo } });
  expect(signup.body.rewards, JSON.stringify(signup.body)).toMatchObject([{ kind: "REFERRAL", amountEth: "0.5", asset: { symbol: "USDC", decimals: 6 } }]);
  const buy = await sdk(request, secret, "POST", "/track", { eventName: "purchase", amount: "19.99", currency: "USD", metadata: { referredUserEmail: bo } });
  expect(buy.body.rewards, JSON.stringify(buy.body)).toMatchObject([{ kind: "COMMISSION", status: "PAID", amountEth: "1.999", asset: { symbol: "USDC", decimals: 6 } }]);

  // Balance: the pool and what is owed, in USDC; the gas balance is the one ETH figure.
  await page.reload();
  await expect(page.getByTestId("pool-balance")).toContainText("997.5 USDC");
  await expect(page.getByTestId("gas-balance")).toContainText("ETH");
  const main = page.getByRole("main");
  // Payouts live on this page: Ann is owed 2.499 USDC in the payout queue.
  await expect(main.getByText("Participants owed USDC that no payout holds yet, and what the next run does about them.")).toBeVisible();
  await expect(main.getByText("2.499 USDC").first()).toBeVisible();
  await expectNoEth(main, "the balance and payouts page");
  await expectPageHealthy(page, "balance (USDC)");

  // Rewards: the commission and the referral reward, in USDC.
  await page.goto("/dashboard/rewards");
  await expect(main.getByText("1.999 USDC").first()).toBeVisible();
  await expect(main.getByText("0.5 USDC").first()).toBeVisible();
  await expect(main.getByText(/from 19\.99 USD at 1 USDC = 1 USD/).first()).toBeVisible();
  await expectNoEth(main, "the rewards page");
  await expectPageHealthy(page, "rewards (USDC)");
  await snap(page, "stablecoin-rewards", { mobile: true });

  // Overview: earned in USDC.
  await page.goto("/dashboard");
  await expect(main.getByText("USDC earned").first()).toBeVisible();
  await expectNoEth(main, "the overview");

  // Ann's portal: her earnings in USDC, never ETH.
  const s = await sdk(request, secret, "POST", "/sdk/participants/portal-sessions", { userId: "u-ann" });
  expect(s.status, JSON.stringify(s.body)).toBe(201);
  const portal = await openPortal(page, s.body.url as string, baseURL!);
  const p = portal.p;
  await expect(p.getByRole("heading", { name: "Your referrals and rewards" })).toBeVisible();
  await expect(p.getByText("2.499 USDC").first()).toBeVisible();
  await expect(p.getByText("Rewards are paid in USDC to this wallet.")).toBeVisible();
  await expectNoEth(p.getByRole("main"), "the portal");
  await expectPageHealthy(p, "portal (USDC)");
  await snap(p, "stablecoin-portal", { mobile: true });
  await portal.close();
});
