// Members through invite links (copy, renew, cancel, join without a business name, hand over
// ownership, remove), honest environments (per-environment settings, a LIVE key created while
// viewing TEST stays in view) and CSV exports.
import { expect, test } from "@playwright/test";
import { expectPageHealthy } from "./a11y";
import { PASSWORD, readSecret, sdk, signInInBrowser, signUpInBrowser, uniqueEmail } from "./support";

test("invite links: renew, cancel, join without a business name, transfer ownership, remove", async ({ page, browser }) => {
  test.setTimeout(180_000);
  const ownerEmail = uniqueEmail("lead");
  const joinerEmail = uniqueEmail("joiner");
  await signUpInBrowser(page, { email: ownerEmail, businessName: "Link Bakery" });
  await expect(page).toHaveURL(/\/dashboard\/get-started$/);
  await page.getByRole("link", { name: "Members" }).first().click();
  const invite = page.getByRole("form", { name: "Invite a member" });

  // An invitation that is cancelled: its link stops working.
  await invite.getByLabel("Email address").fill(uniqueEmail("cancelled"));
  await invite.getByRole("button", { name: "Invite member" }).click();
  const cancelledUrl = (await page.getByTestId("invite-url").textContent())!.trim();
  expect(cancelledUrl).toMatch(/\/sign-up\?invite=/);
  await page.getByTestId("member-row").filter({ hasText: "cancelled-" }).getByRole("button", { name: "Cancel invitation" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Cancel invitation" }).click();
  await expect(page.getByTestId("member-row").filter({ hasText: "cancelled-" })).toHaveCount(0);

  await invite.getByLabel("Email address").fill(joinerEmail);
  await invite.getByRole("button", { name: "Invite member" }).click();
  const firstUrl = (await page.getByTestId("invite-url").textContent())!.trim();
  const row = page.getByTestId("member-row").filter({ hasText: joinerEmail });
  await expect(row).toContainText("Link valid until");
  await row.getByRole("button", { name: "New link" }).click();
  await expect(page.getByTestId("invite-url")).not.toHaveText(firstUrl);
  const url = (await page.getByTestId("invite-url").textContent())!.trim();

  // The joiner opens the link in their own browser: no business name asked, the email fixed.
  const other = await browser.newContext();
  const joiner = await other.newPage();
  await joiner.goto(firstUrl.replace(/^https?:\/\/[^/]+/, ""));
  await expect(joiner.getByText("This invitation link does not work")).toBeVisible();
  await joiner.goto(cancelledUrl.replace(/^https?:\/\/[^/]+/, ""));
  await expect(joiner.getByText("This invitation link does not work")).toBeVisible();
  await joiner.goto(url.replace(/^https?:\/\/[^/]+/, ""));
  await expect(joiner.getByRole("heading", { name: "Join Link Bakery" })).toBeVisible();
  await expect(joiner.getByLabel("Business name")).toHaveCount(0);
  await expect(joiner.getByLabel("Email")).toHaveValue(joinerEmail);
  await joiner.getByLabel("Your name").fill("Jo Joiner");
  await joiner.getByLabel("Password").fill(PASSWORD);
  await joiner.getByRole("button", { name: "Join the team" }).click();
  await expect(joiner.getByTestId("user-role").first()).toHaveText("Member");
  await expect(joiner.getByTestId("business-name").first()).toHaveText("Link Bakery");
  await other.close();

  // The owner hands the business over and becomes a member.
  await page.reload();
  await row.getByRole("button", { name: "Make owner" }).click();
  // A wrong password is refused and changes nothing; the owner's own goes through.
  await page.getByRole("dialog").getByLabel("Your password").fill("not-my-password");
  await page.getByRole("dialog").getByRole("button", { name: "Transfer ownership" }).click();
  await expect(page.getByRole("dialog").getByRole("alert")).toContainText("password");
  await page.getByRole("dialog").getByLabel("Your password").fill(PASSWORD);
  await page.getByRole("dialog").getByRole("button", { name: "Transfer ownership" }).click();
  await expect(page.getByTestId("user-role").first()).toHaveText("Member");
  await expect(page.getByRole("form", { name: "Invite a member" })).toHaveCount(0);

  // The new owner removes the former owner, who loses access.
  await page.getByRole("button", { name: "Sign out" }).first().click();
  await signInInBrowser(page, joinerEmail);
  await page.goto("/dashboard/members");
  await page.getByTestId("member-row").filter({ hasText: ownerEmail }).getByRole("button", { name: "Remove" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Remove member" }).click();
  await expect(page.getByTestId("member-row")).toHaveCount(1);

  // Invited again, the former owner (an account with no business now) is not attached by email:
  // the link's sign-in page joins them once they sign in to that account.
  await invite.getByLabel("Email address").fill(ownerEmail);
  await invite.getByRole("button", { name: "Invite member" }).click();
  await expect(page.getByTestId("member-row").filter({ hasText: ownerEmail }).getByText("INVITED")).toBeVisible();
  const againUrl = (await page.getByTestId("invite-url").textContent())!.trim();
  const back = await browser.newContext();
  const former = await back.newPage();
  await former.goto(againUrl.replace(/^https?:\/\/[^/]+/, ""));
  await expect(former.getByRole("heading", { name: "Join Link Bakery" })).toBeVisible();
  await former.getByRole("link", { name: "Sign in to join" }).click();
  await expect(former).toHaveURL(/\/sign-in\?invite=/);
  await expect(former.getByRole("heading", { name: "Join Link Bakery" })).toBeVisible();
  await expect(former.getByLabel("Email")).toHaveValue(ownerEmail);
  await expectPageHealthy(former, "sign-in through an invitation");
  await former.getByLabel("Password").fill(PASSWORD);
  await former.getByRole("button", { name: "Sign in and join" }).click();
  await expect(former.getByTestId("user-role").first()).toHaveText("Member");
  await expect(former.getByTestId("business-name").first()).toHaveText("Link Bakery");
  await back.close();
});

test("settings per environment, a LIVE key created while viewing TEST stays in view, CSV exports", async ({ page, request }) => {
  test.setTimeout(180_000);
  await signUpInBrowser(page, { email: uniqueEmail("envs"), businessName: "Env Goods" });
  await expect(page).toHaveURL(/\/dashboard\/get-started$/);
  await page.getByRole("button", { name: "Create test key" }).click();
  const secret = await readSecret(page);

  await page.getByRole("link", { name: "Configuration" }).first().click();
  const general = page.getByRole("form", { name: "General settings" });
  await expect(general.getByText("Test only")).toBeVisible();
  await expect(general.getByText("Shared by test and live")).toBeVisible();
  await general.getByLabel("Referral reward (ETH)").fill("0.2");
  await general.getByRole("button", { name: "Save general settings" }).click();
  await expect(page.getByText("General settings saved")).toBeVisible();
  const spend = page.getByRole("form", { name: "Spend limits" });
  await spend.getByLabel("Low-pool alert (ETH)").fill("3");
  await spend.getByRole("button", { name: "Save spend limits" }).click();
  await expect(page.getByText("Spend limits saved")).toBeVisible();
  await page.getByRole("radio", { name: "Live" }).first().click();
  await expect(general.getByText("Live only")).toBeVisible();
  await expect(general.getByLabel("Referral reward (ETH)")).toHaveValue("0");
  await expect(spend.getByLabel("Low-pool alert (ETH)")).toHaveValue("0");
  await page.getByRole("radio", { name: "Test" }).first().click();
  await expect(general.getByLabel("Referral reward (ETH)")).toHaveValue("0.2");
  await expect(spend.getByLabel("Low-pool alert (ETH)")).toHaveValue("3");

  // A LIVE key created while viewing TEST: the page follows it to LIVE.
  await page.getByRole("link", { name: "API keys" }).first().click();
  await page.getByRole("button", { name: "Create key" }).first().click();
  const form = page.getByRole("form", { name: "Create API key" });
  await form.getByLabel("Environment").selectOption("LIVE");
  await form.getByLabel("Name (optional)").fill("Live shop");
  await form.getByRole("button", { name: "Create key" }).click();
  await readSecret(page);
  await expect(page.getByRole("radio", { name: "Live" }).first()).toHaveAttribute("aria-checked", "true");
  await expect(page.getByTestId("api-key-row").filter({ hasText: "Live shop" })).toBeVisible();

  // Exports: the referral list's CSV, with the filters in the link; refused without a session.
  const alice = await sdk(request, secret, "POST", "/sdk/participants", { userId: "u-a", email: "alice@example.com", name: "Alice" });
  await sdk(request, secret, "POST", "/sdk/referrals/apply", { referralCode: alice.body.referralCode, referredUserId: "u-b", referredUserEmail: "bob@example.com", source: "web" });
  await page.getByRole("radio", { name: "Test" }).first().click();
  await page.getByRole("link", { name: "Referrals" }).first().click();
  await expect(page.getByTestId("referral-row")).toHaveCount(1);
  const href = await page.getByTestId("export-referrals").getAttribute("href");
  expect(href).toContain("environment=TEST");
  const csv = await page.request.get(href!);
  expect(csv.status()).toBe(200);
  expect(csv.headers()["content-type"]).toContain("text/csv");
  const lines = (await csv.text()).trim().split("\r\n");
  expect(lines).toHaveLength(2);
  expect(lines[1]).toContain("bob@example.com");
  const events = await page.request.get("/api/export/events?environment=TEST");
  expect(events.status()).toBe(200);
  expect((await request.get("/api/export/referrals?environment=TEST")).status()).toBe(401);
  expect((await page.request.get("/api/export/referrals?environment=MARS")).status()).toBe(400);
});
