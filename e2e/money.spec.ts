// Money a person can read, in a real browser: amounts rounded for display (the exact value on
// hover) with their value in the default currency at the price in force, on the dashboard, the
// portal and the embed; a reward amount typed in USD is converted at the price, the conversion
// shown before saving. Then the small things: the funnel names referrers and shows no rate over
// 100 %, the Referrals page puts its statistics above its list, tables fit at 1440 px, "1 referral".
import { expect, test, type Page } from "@playwright/test";
import { expectPageHealthy } from "./a11y";
import { fundTestPool, readSecret, sdk, signUpInBrowser, uniqueEmail } from "./support";

/** Every table on the page shows its last column without scrolling sideways (at the current width). */
async function expectTablesFit(page: Page, name: string) {
  const clipped = await page.locator("table").evaluateAll((tables) =>
    tables.filter((t) => t.scrollWidth > (t.parentElement?.clientWidth ?? 0) + 1).map((t) => `${t.getAttribute("aria-label")}: ${t.scrollWidth} > ${t.parentElement?.clientWidth}`),
  );
  expect(clipped, `${name}: tables wider than their card`).toEqual([]);
}

/** 100 USD at 1 ETH = 3,004.41 USD, in wei rounded down (as a reward is). */
const HUNDRED_USD_WEI = (100n * 10n ** 18n * 100n) / 300441n;
const ethOfWei = (wei: bigint) => `${wei / 10n ** 18n}.${(wei % 10n ** 18n).toString().padStart(18, "0")}`.replace(/0+$/, "");

test("amounts read rounded beside their USD value; a reward typed in USD is converted before saving", async ({ page, request, baseURL }) => {
  test.setTimeout(300_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  await signUpInBrowser(page, { email: uniqueEmail("money"), businessName: "Readable Shop" });
  await expect(page).toHaveURL(/\/dashboard\/get-started$/);
  await page.getByRole("button", { name: "Create test key" }).click();
  const secret = await readSecret(page);
  await page.getByRole("link", { name: "Balance & funding" }).first().click();
  await fundTestPool(page);
  const headers = { origin: baseURL! };
  expect((await page.request.patch("/business/config/pricing", { data: { environment: "TEST", source: "FIXED", rates: { USD: "3004.41" } }, headers })).status()).toBe(200);
  expect((await page.request.patch("/business/config/general", { data: { environment: "TEST", eventProcessing: "SYNC", bonusEth: "0" }, headers })).status()).toBe(200);

  // The referral reward typed in USD: converted at the price, the conversion shown before saving.
  await page.goto("/dashboard/configuration");
  const general = page.getByRole("form", { name: "General settings" });
  await general.getByLabel("Referral reward: typed in").selectOption("USD");
  await general.getByLabel("Referral reward (USD)").fill("100");
  await expect(general.getByTestId("amount-conversion").first()).toHaveText("= 0.03328 ETH at 1 ETH = 3,004.41 USD");
  await general.getByRole("button", { name: "Save general settings" }).click();
  await expect(page.getByText("General settings saved")).toBeVisible();
  const config = await (await page.request.get("/business/config?environment=TEST")).json();
  expect(config.general.referralRewardEth).toBe(ethOfWei(HUNDRED_USD_WEI));
  await expectPageHealthy(page, "Configuration with an amount in USD");
  // Every ETH input takes the default currency too: a spend limit typed in USD.
  const spend = page.getByRole("form", { name: "Spend limits" });
  await spend.getByLabel("Low-pool alert: typed in").selectOption("USD");
  await spend.getByLabel("Low-pool alert (USD)").fill("3004.41");
  await expect(spend.getByTestId("amount-conversion").filter({ hasText: "= 1 ETH" })).toHaveText("= 1 ETH at 1 ETH = 3,004.41 USD");
  await spend.getByRole("button", { name: "Save spend limits" }).click();
  await expect(page.getByText("Spend limits saved")).toBeVisible();
  expect((await (await page.request.get("/business/config?environment=TEST")).json()).spend.lowPoolAlertEth).toBe("1");

  const alice = await sdk(request, secret, "POST", "/sdk/participants", { userId: "u-alice", email: "alice@example.com", name: "Alice" });
  expect((await sdk(request, secret, "POST", "/sdk/referrals/apply", { referralCode: alice.body.referralCode, referredUserId: "u-bob", referredUserEmail: "bob@example.com" })).status).toBe(200);
  expect((await sdk(request, secret, "POST", "/track", { eventName: "purchase", metadata: { referredUserId: "u-bob" } })).body.status).toBe("PROCESSED");

  // Rewards: rounded, in USD beside it, the exact amount on hover; the export keeps it exact.
  await page.goto("/dashboard/rewards");
  const amount = page.locator(`[data-exact-eth="${ethOfWei(HUNDRED_USD_WEI)}"]`).first();
  await expect(amount).toHaveText("0.03328 ETH ≈ 100.00 USD");
  await expect(amount).toHaveAttribute("title", `${ethOfWei(HUNDRED_USD_WEI)} ETH`);
  await expect(page.getByTestId("ledger-balance")).toHaveText("0.9667 ETH ≈ 2,904.41 USD");
  await expectPageHealthy(page, "Rewards with USD values");
  await expectTablesFit(page, "Rewards");

  // Overview, Referrals, the participant and Get started say the same, in the same words.
  await page.goto("/dashboard");
  await expect(page.getByText("0.03328 ETH ≈ 100.00 USD").first()).toBeVisible();
  await expectPageHealthy(page, "Overview with USD values");
  await expectTablesFit(page, "Overview");
  await page.goto(`/dashboard/participants/${alice.body.participantId}`);
  await expect(page.getByTestId("participant-detail")).toContainText("0.03328 ETH ≈ 100.00 USD");
  await expectPageHealthy(page, "Participant with USD values");
  await page.goto("/dashboard/get-started");
  await expect(page.getByTestId("first-reward")).toHaveText("Alice earned 0.03328 ETH ≈ 100.00 USD for a referral. It is paid out to their wallet once it is payable.");
  await expect(page.getByText("Your first referral reward was earned")).toBeVisible();

  // The portal and the embed: the same rule, the same price.
  const s = await sdk(request, secret, "POST", "/sdk/participants/portal-sessions", { participantId: alice.body.participantId });
  expect(s.status).toBe(201);
  const embed = await request.get(`/portal/embed?token=${encodeURIComponent(s.body.token as string)}`);
  const html = await embed.text();
  expect(html).toContain("0.03328 ETH ≈ 100.00 USD");
  expect(html).toContain(`title="${ethOfWei(HUNDRED_USD_WEI)} ETH"`);
  expect(html).toContain("0 visits through your link, 1 referral, 1 qualified.");
  const portal = await page.context().browser()!.newContext({ baseURL });
  const p = await portal.newPage();
  await p.goto(new URL(s.body.url as string).pathname + new URL(s.body.url as string).search);
  await expect(p).toHaveURL(/\/portal$/);
  await expect(p.getByText("0.03328 ETH ≈ 100.00 USD").first()).toBeVisible();
  await expect(p.getByText("0 visits through your link (0 in the last 30 days); 1 referral in all, 1 qualified.")).toBeVisible();
  await expectPageHealthy(p, "Portal with USD values");
  await portal.close();
});

test("the funnel names referrers and never shows a rate over 100 %; Referrals shows its statistics first; tables fit at 1440 px", async ({ page, request, baseURL }) => {
  test.setTimeout(240_000);
  await signUpInBrowser(page, { email: uniqueEmail("walk"), businessName: "Walk Shop" });
  await expect(page).toHaveURL(/\/dashboard\/get-started$/);
  await page.getByRole("button", { name: "Create test key" }).click();
  const secret = await readSecret(page);
  expect((await page.request.patch("/business/config/general", { data: { environment: "TEST", linkDestinationUrl: "http://landing.localhost:4010/welcome" }, headers: { origin: baseURL! } })).status()).toBe(200);
  const ann = await sdk(request, secret, "POST", "/sdk/participants", { userId: "u-ann", email: uniqueEmail("ann"), name: "Ann Archer" });
  const code = ann.body.referralCode as string;
  // One visitor through the link, three referrals applied with the code (two without a click).
  expect((await request.get(`/r/${code}`, { maxRedirects: 0, headers: { "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0" } })).status()).toBe(302);
  for (const friend of ["f1", "f2", "f3"]) {
    expect((await sdk(request, secret, "POST", "/sdk/referrals/apply", { referralCode: code, referredUserId: friend, referredUserEmail: uniqueEmail(friend) })).status).toBe(200);
  }

  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto("/dashboard");
  const funnel = page.getByTestId("funnel");
  const row = funnel.getByRole("row").filter({ hasText: code });
  await expect(row).toContainText("Ann Archer");
  await expect(row).toContainText("3"); // referrals
  const rates = [...(await funnel.innerText()).matchAll(/(\d+)%/g)].map((m) => Number(m[1]));
  expect(rates.filter((r) => r > 100), "rates over 100 %").toEqual([]);
  await expectTablesFit(page, "Overview");
  await expectPageHealthy(page, "Overview with a funnel");

  await page.goto("/dashboard/referrals");
  await expect(page.getByTestId("referral-row").first()).toBeVisible();
  const statsBottom = await page.getByRole("heading", { name: "Top referrers" }).boundingBox();
  const listTop = await page.getByRole("heading", { name: "All referrals" }).boundingBox();
  expect(statsBottom!.y).toBeLessThan(listTop!.y);
  await expectTablesFit(page, "Referrals");

  for (const path of ["/dashboard/participants", "/dashboard/rewards", "/dashboard/events", "/dashboard/balance", "/dashboard/configuration", "/dashboard/api-keys", "/dashboard/members", "/dashboard/audit-log"]) {
    await page.goto(path);
    await expect(page.getByRole("heading", { level: 1 }).first()).toBeVisible();
    await expect(page.locator('[role="status"][aria-label^="Loading"]')).toHaveCount(0);
    await expectTablesFit(page, path);
  }
});
