// The referrer's portal in a real browser: the link from a portal session opens the page (cookie
// exchange, no token left in the URL), the participant sees their code, link, earnings and
// masked referrals; axe finds nothing serious at 1440 and 390 px; staff open the read-only preview.
import { expect, test } from "@playwright/test";
import { expectPageHealthy } from "./a11y";
import { readSecret, sdk, signUpInBrowser, uniqueEmail } from "./support";

test("a participant opens their portal; staff preview it read-only", async ({ page, request, baseURL }) => {
  test.setTimeout(180_000);
  await signUpInBrowser(page, { email: uniqueEmail("portal"), businessName: "Portal Goods" });
  await expect(page).toHaveURL(/\/dashboard\/get-started$/);
  await page.getByRole("button", { name: "Create test key" }).click();
  const secret = await readSecret(page);
  const general = await page.request.patch("/business/config/general", { data: { website: "https://portal-goods.example/join", eventProcessing: "SYNC", referralRewardEth: "0.01" }, headers: { origin: baseURL! } });
  expect(general.status()).toBe(200);

  const ann = await sdk(request, secret, "POST", "/sdk/participants", { userId: "u-ann", email: "ann@example.com", name: "Ann Archer" });
  for (const [id, email] of [["u-bo", "bo.baker@example.com"], ["u-cy", "cy.cook@example.com"]]) {
    expect((await sdk(request, secret, "POST", "/sdk/referrals/apply", { referralCode: ann.body.referralCode, referredUserId: id, referredUserEmail: email, referredUserName: "Secret Person" })).status).toBe(200);
  }
  const s = await sdk(request, secret, "POST", "/sdk/participants/portal-sessions", { userId: "u-ann", returnUrl: "https://portal-goods.example/account" });
  expect(s.status).toBe(201);

  const portal = await page.context().browser()!.newContext({ baseURL });
  const p = await portal.newPage();
  await p.goto(new URL(s.body.url as string).pathname + new URL(s.body.url as string).search);
  await expect(p).toHaveURL(/\/portal$/);
  await expect(p.getByRole("heading", { name: "Your referrals and rewards" })).toBeVisible();
  await expect(p.getByTestId("referral-code")).toHaveText(ann.body.referralCode);
  await expect(p.getByTestId("share-url")).toHaveText(`https://portal-goods.example/join?ref=${ann.body.referralCode}`);
  await expect(p.getByText("b•••@example.com")).toBeVisible();
  const text = await p.locator("body").innerText();
  expect(text).not.toContain("bo.baker");
  expect(text).not.toContain("Secret Person");
  await expect(p.getByRole("button", { name: "Verify with your wallet" })).toBeVisible();
  await expectPageHealthy(p, "Portal");
  await portal.close();

  await page.goto(`/dashboard/participants/${ann.body.participantId}`);
  await page.getByRole("link", { name: "Preview their portal" }).click();
  await expect(page.getByText("Read-only preview")).toBeVisible();
  await expect(page.getByTestId("referral-code")).toHaveText(ann.body.referralCode);
  await expect(page.getByRole("button", { name: "Verify with your wallet" })).toHaveCount(0);
  await expectPageHealthy(page, "Portal preview");
});
