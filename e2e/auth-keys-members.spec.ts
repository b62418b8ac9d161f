// Sign-up and sign-in, API key lifecycle in the browser, and a member without owner rights.
import { expect, test } from "@playwright/test";
import { PASSWORD, readSecret, sdk, signInInBrowser, signUpInBrowser, snap, uniqueEmail } from "./support";

test("visitors without a session are sent to sign-in; sign-up validates and lands on onboarding", async ({ page }) => {
  await page.goto("/dashboard/api-keys");
  await expect(page).toHaveURL(/\/sign-in\?next=%2Fdashboard%2Fapi-keys/);
  await snap(page, "sign-in", { mobile: true });

  await page.goto("/sign-up");
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByText("Enter the name of your business.")).toBeVisible();
  await expect(page.getByText("Enter a valid email address.")).toBeVisible();
  await expect(page.getByLabel("Business name")).toHaveAttribute("aria-invalid", "true");
  await snap(page, "sign-up-errors");

  const email = uniqueEmail("owner");
  await signUpInBrowser(page, { email, businessName: "Acme Coffee" });
  await expect(page).toHaveURL(/\/dashboard\/get-started$/);
  await expect(page.getByRole("heading", { name: "Welcome, Acme Coffee" })).toBeVisible();
  await expect(page.getByTestId("user-role").first()).toHaveText("Owner");

  // Same email again: the provider's error shows next to the email field.
  await page.getByRole("button", { name: "Sign out" }).first().click();
  await expect(page).toHaveURL(/\/sign-in/);
  await signUpInBrowser(page, { email, businessName: "Copycat" });
  await expect(page.getByLabel("Email")).toHaveAttribute("aria-invalid", "true");

  // Wrong password, then the right one.
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("not-the-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByText("Wrong email or password.")).toBeVisible();
  await signInInBrowser(page, email);
  await expect(page).toHaveURL(/\/dashboard$/);
  // Signed in already: the sign-in page forwards to the dashboard.
  await page.goto("/sign-in");
  await expect(page).toHaveURL(/\/dashboard$/);

  // On a phone the navigation lives in a drawer.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole("button", { name: "Open navigation" }).click();
  await page.getByRole("dialog", { name: "Navigation" }).getByRole("link", { name: "Members" }).click();
  await expect(page).toHaveURL(/\/dashboard\/members$/);
  await expect(page.getByRole("dialog", { name: "Navigation" })).toHaveCount(0);
  await expect(page.getByRole("heading", { name: "Members", level: 1 })).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
});

test("owner creates, rotates and revokes API keys; origins are validated next to the field; scopes narrow a key", async ({ page, request }) => {
  await signUpInBrowser(page, { email: uniqueEmail("keys"), businessName: "Key Shop" });
  await expect(page).toHaveURL(/\/dashboard\/get-started$/);
  await snap(page, "get-started", { mobile: true });

  await page.getByRole("link", { name: "API keys" }).first().click();
  await expect(page.getByText("No test keys yet")).toBeVisible();
  await page.getByRole("button", { name: "Create key" }).first().click();
  const form = page.getByRole("form", { name: "Create API key" });
  await form.getByLabel("Name (optional)").fill("Web shop");
  await form.getByLabel("Allowed origins (optional)").fill("https://shop.example.com\nnot an origin");
  await form.getByRole("button", { name: "Create key" }).click();
  await expect(form.getByText(/not an origin: Must be an origin/)).toBeVisible();
  await expect(form.getByLabel("Allowed origins (optional)")).toHaveAttribute("aria-invalid", "true");

  await form.getByLabel("Allowed origins (optional)").fill("");
  await form.getByRole("button", { name: "Create key" }).click();
  const secret = await readSecret(page);
  expect(secret).toMatch(/^rk_test_/);
  await expect(page.getByText("Copy this secret now")).toBeVisible();
  const row = page.getByTestId("api-key-row").filter({ hasText: "Web shop" });
  await expect(row.getByText("ACTIVE")).toBeVisible();
  await snap(page, "api-keys", { mobile: true });

  // Rotate with a grace period: a new secret, the old one still noted as valid.
  await row.getByRole("button", { name: "Rotate" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByLabel("Grace period for the old secret").selectOption({ label: "1 hour" });
  await dialog.getByRole("button", { name: "Rotate key" }).click();
  const rotated = (await dialog.getByTestId("api-key-secret").textContent())!.trim();
  expect(rotated).toMatch(/^rk_test_/);
  expect(rotated).not.toBe(secret);
  await expect(dialog.getByText(/old secret keeps working until/)).toBeVisible();
  await snap(page, "api-keys-rotated");
  await dialog.getByRole("button", { name: "Done" }).click();
  await expect(row.getByText(/Old secret valid until/)).toBeVisible();

  // Revoke with confirmation.
  await row.getByRole("button", { name: "Revoke" }).click();
  await expect(page.getByRole("dialog")).toContainText("will be refused immediately");
  await page.getByRole("dialog").getByRole("button", { name: "Revoke key" }).click();
  await expect(row.getByText("REVOKED")).toBeVisible(); // optimistic…
  await expect(page.getByText("Key revoked", { exact: true })).toBeVisible(); // …then confirmed
  await expect(row.getByRole("button", { name: "Rotate" })).toHaveCount(0);

  // The TEST/LIVE switch filters the list.
  await page.getByRole("radio", { name: "Live" }).first().click();
  await expect(page.getByText("No live keys yet")).toBeVisible();
  await page.reload(); // the choice is remembered
  await expect(page.getByRole("radio", { name: "Live" }).first()).toHaveAttribute("aria-checked", "true");
  await expect(page.getByText("No live keys yet")).toBeVisible();
  await page.getByRole("radio", { name: "Test" }).first().click();
  await expect(row).toBeVisible();

  // After the reload the secret is gone for good: it is shown once.
  await expect(page.getByTestId("api-key-secret")).toHaveCount(0);

  // A LIVE key without allowed origins is created with a warning.
  await page.getByRole("button", { name: "Create key" }).first().click();
  await form.getByLabel("Environment").selectOption("LIVE");
  await expect(form.getByText(/must never ship in a browser bundle/)).toBeVisible();
  await form.getByLabel("Name (optional)").fill("Server");
  await form.getByRole("button", { name: "Create key" }).click();
  expect(await readSecret(page)).toMatch(/^rk_live_/);
  await expect(page.getByRole("alert").filter({ hasText: /origin/i }).first()).toBeVisible();
  await page.getByRole("radio", { name: "Live" }).first().click();
  await expect(page.getByTestId("api-key-row").filter({ hasText: "Server" })).toBeVisible();
  await page.getByRole("radio", { name: "Test" }).first().click();

  // The revoked key is refused by the SDK routes.
  const refused = await sdk(request, rotated, "GET", "/sdk/referrals");
  expect(refused.status).toBe(401);

  // A secret key narrowed to one scope: the list says so, and the API holds it to it.
  await page.getByRole("button", { name: "Create key" }).first().click();
  await form.getByLabel("Name (optional)").fill("Events only");
  for (const scope of ["referrals:write", "referrals:read", "participants:write", "jobs:read", "rewards:write"]) {
    await form.getByRole("checkbox", { name: new RegExp(`^${scope} `) }).uncheck();
  }
  await expect(form.getByRole("checkbox", { name: /^track / })).toBeChecked();
  await form.getByRole("button", { name: "Create key" }).click();
  const narrow = await readSecret(page);
  await expect(page.getByTestId("api-key-row").filter({ hasText: "Events only" }).getByTestId("api-key-scopes")).toHaveText("track");
  await expect(page.getByTestId("api-key-row").filter({ hasText: "Web shop" }).getByTestId("api-key-scopes")).toHaveText("All scopes");
  const outside = await sdk(request, narrow, "GET", "/sdk/referrals");
  expect(outside.status).toBe(403);
  expect(outside.body.error.code).toBe("INSUFFICIENT_SCOPE");
  expect((await sdk(request, narrow, "POST", "/track", { eventName: "signup", metadata: { referredUserEmail: uniqueEmail("scoped") } })).status).toBeLessThan(300);
});

test("a member invited by email signs up into the business and sees no owner actions", async ({ page }) => {
  const ownerEmail = uniqueEmail("boss");
  const memberEmail = uniqueEmail("member");
  await signUpInBrowser(page, { email: ownerEmail, businessName: "Team Bakery" });
  await expect(page).toHaveURL(/\/dashboard\/get-started$/);
  await page.getByRole("button", { name: "Create test key" }).click();
  await readSecret(page);

  await page.getByRole("link", { name: "Members" }).first().click();
  const invite = page.getByRole("form", { name: "Invite a member" });
  await invite.getByLabel("Email address").fill("not-an-email");
  await invite.getByRole("button", { name: "Invite member" }).click();
  await expect(invite.getByLabel("Email address")).toHaveAttribute("aria-invalid", "true");
  await invite.getByLabel("Email address").fill(memberEmail);
  await invite.getByRole("button", { name: "Invite member" }).click();
  await expect(page.getByTestId("member-row").filter({ hasText: memberEmail }).getByText("INVITED")).toBeVisible();
  const inviteUrl = (await page.getByTestId("invite-url").textContent())!.trim();
  await snap(page, "members", { mobile: true });

  await page.getByRole("button", { name: "Sign out" }).first().click();
  await expect(page).toHaveURL(/\/sign-in/);
  // The invited person opens the invitation link: the email is fixed, no business name needed.
  await page.goto(inviteUrl.replace(/^https?:\/\/[^/]+/, ""));
  await page.getByLabel("Your name").fill("Mia Member");
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Join the team" }).click();
  await expect(page.getByTestId("user-role").first()).toHaveText("Member");
  await expect(page.getByTestId("business-name")).toHaveText("Team Bakery");

  await page.goto("/dashboard/api-keys");
  await expect(page.getByTestId("api-key-row")).toHaveCount(1);
  await expect(page.getByRole("button", { name: "Create key" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Rotate" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Revoke" })).toHaveCount(0);
  await expect(page.getByText("Only the owner of the business can create, rotate or revoke keys.")).toBeVisible();
  await snap(page, "api-keys-member");

  await page.goto("/dashboard/members");
  await expect(page.getByRole("form", { name: "Invite a member" })).toHaveCount(0);
  await expect(page.getByTestId("member-row").filter({ hasText: memberEmail }).getByText("ACTIVE")).toBeVisible();

  await page.goto("/dashboard/get-started");
  await expect(page.getByRole("button", { name: "Create test key" })).toHaveCount(0);

  // Other owner-only actions are hidden too: funding, manual rewards, spend limits.
  await page.goto("/dashboard/balance");
  await expect(page.getByText("Only the owner can verify deposits.")).toBeVisible();
  await expect(page.getByRole("form", { name: "Verify a deposit" })).toHaveCount(0);
  await expect(page.getByRole("form", { name: "Send a test deposit" })).toHaveCount(0);
  await page.goto("/dashboard/rewards");
  await expect(page.getByRole("heading", { name: "Ledger" })).toBeVisible();
  await expect(page.getByRole("form", { name: "Grant a reward" })).toHaveCount(0);
  await page.goto("/dashboard/configuration");
  await expect(page.getByText("Only the owner can change spend limits.")).toBeVisible();
  await expect(page.getByRole("button", { name: "Save spend limits" })).toHaveCount(0);
  await expect(page.getByLabel("Low-pool alert (ETH)")).toBeDisabled();
  // …while what members may do stays available (general settings, review).
  await expect(page.getByRole("button", { name: "Save general settings" })).toBeVisible();
  await snap(page, "configuration-member");
  // Signing in again keeps the member role.
  await page.getByRole("button", { name: "Sign out" }).first().click();
  await signInInBrowser(page, memberEmail);
  await expect(page.getByTestId("user-role").first()).toHaveText("Member");
});
