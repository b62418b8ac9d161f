// Referral links in a real browser: clicks on a participant's /r/ link reach the dashboard's
// funnel (chart with conversion rates, table per referrer and per campaign), the participant's
// staff page and their portal; a fraud signal reads in words in the review queue; axe finds
// nothing serious at 1440 and 390 px.
import { expect, test } from "@playwright/test";
import { expectPageHealthy } from "./a11y";
import { readSecret, sdk, signUpInBrowser, uniqueEmail } from "./support";

test("clicks on a referral link show in the funnel, on the participant's page and in their portal", async ({ page, request, baseURL }) => {
  test.setTimeout(180_000);
  await signUpInBrowser(page, { email: uniqueEmail("links"), businessName: "Link Goods" });
  await expect(page).toHaveURL(/\/dashboard\/get-started$/);
  await page.getByRole("button", { name: "Create test key" }).click();
  const secret = await readSecret(page);
  const general = await page.request.patch("/business/config/general", { data: { environment: "TEST", linkDestinationUrl: "http://landing.localhost:4010/welcome" }, headers: { origin: baseURL! } });
  expect(general.status()).toBe(200);

  const ann = await sdk(request, secret, "POST", "/sdk/participants", { userId: `u-ann-${Date.now()}`, email: uniqueEmail("ann"), name: "Ann Archer" });
  const code = ann.body.referralCode as string;
  // Three visitors (three browsers), one of them twice in the hour, and a link preview.
  const follow = (ua: string) => request.get(`/r/${code}?utm_source=mail&utm_campaign=spring`, { maxRedirects: 0, headers: { "user-agent": ua } });
  const firstVisit = await follow("Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0 one");
  expect(firstVisit.status()).toBe(302);
  const clickId = new URL(firstVisit.headers()["location"]).searchParams.get("rts_click");
  for (const ua of ["Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0 one", "Mozilla/5.0 Safari/17.0 two", "Mozilla/5.0 Chrome/130.0 three", "Slackbot-LinkExpanding 1.0"]) {
    expect((await follow(ua)).status()).toBe(302);
  }
  const applied = await sdk(request, secret, "POST", "/sdk/referrals/apply", { referralCode: code, referredUserId: `friend-${Date.now()}`, clickId });
  expect(applied.status).toBe(200);

  await page.goto("/dashboard");
  const funnel = page.getByTestId("funnel");
  await expect(funnel).toBeVisible();
  await expect(funnel.getByRole("table")).toContainText(code);
  await expect(funnel.getByRole("table")).toContainText("3"); // counted clicks
  await page.getByLabel("Group the table by").selectOption("campaign");
  await expect(funnel.getByRole("table")).toContainText("spring");
  await expectPageHealthy(page, "Overview with the funnel");

  await page.goto(`/dashboard/participants/${ann.body.participantId}`);
  await expect(page.getByTestId("participant-clicks")).toContainText("3");

  // A fraud signal in words in the review queue: NO_CLICK flags a referral made without a click.
  const rules = await page.request.patch("/business/referrals/settings", { data: { signals: { NO_CLICK: "FLAG" } }, headers: { origin: baseURL! } });
  expect(rules.status()).toBe(200);
  const flagged = await sdk(request, secret, "POST", "/sdk/referrals/apply", { referralCode: code, referredUserId: `no-click-${Date.now()}`, referredUserEmail: uniqueEmail("noclick") });
  expect(flagged.body).toMatchObject({ status: "FLAGGED", reason: "NO_CLICK" });
  await page.goto("/dashboard/referrals");
  await expect(page.locator('[data-testid="referral-row"][data-status="FLAGGED"]')).toContainText("no click on a referral link before the sign-up");

  const s = await sdk(request, secret, "POST", "/sdk/participants/portal-sessions", { participantId: ann.body.participantId });
  expect(s.status).toBe(201);
  const portal = await page.context().browser()!.newContext({ baseURL });
  const p = await portal.newPage();
  await p.goto(new URL(s.body.url as string).pathname + new URL(s.body.url as string).search);
  await expect(p).toHaveURL(/\/portal$/);
  await expect(p.getByTestId("share-url")).toHaveText(new RegExp(`/r/${code}$`));
  await expect(p.getByText("3 visits through your link")).toBeVisible();
  await expectPageHealthy(p, "Portal with clicks");
  await portal.close();
});
