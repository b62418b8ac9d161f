// Referrals and participants: find who referred whom, filter, page, open the timeline.
import { expect, test } from "@playwright/test";
import { expectPageHealthy } from "./a11y";
import { readSecret, sdk, signUpInBrowser, snap, uniqueEmail } from "./support";

test("search referrals and participants, filter, and read a referral's timeline", async ({ page, request }) => {
  test.setTimeout(180_000);
  await signUpInBrowser(page, { email: uniqueEmail("people"), businessName: "People Goods" });
  await expect(page).toHaveURL(/\/dashboard\/get-started$/);
  await page.getByRole("button", { name: "Create test key" }).click();
  const secret = await readSecret(page);

  const alice = await sdk(request, secret, "POST", "/sdk/participants", { userId: "u-alice", email: "alice@example.com", name: "Alice Archer" });
  const code = alice.body.referralCode as string;
  for (const [id, name] of [["u-bob", "Bob Baker"], ["u-carol", "Carol Cook"]]) {
    const r = await sdk(request, secret, "POST", "/sdk/referrals/apply", { referralCode: code, referredUserId: id, referredUserEmail: `${id.slice(2)}@example.com`, referredUserName: name, source: "newsletter", campaign: "spring" });
    expect(r.status).toBe(200);
  }
  // Bob buys: attributed through his user id alone.
  expect((await sdk(request, secret, "POST", "/track", { eventName: "purchase", metadata: { referredUserId: "u-bob" }, source: "checkout" })).status).toBe(200);

  await page.getByRole("link", { name: "Referrals" }).first().click();
  const rows = page.getByTestId("referral-row");
  await expect(rows).toHaveCount(2);
  await expect(rows.first()).toContainText("Alice Archer");
  const filters = page.getByRole("form", { name: "Filter referrals" });
  await filters.getByLabel("Search").fill("baker");
  await filters.getByRole("button", { name: "Apply" }).click();
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText("Bob Baker");
  await filters.getByLabel("Status").selectOption("REJECTED");
  await filters.getByRole("button", { name: "Apply" }).click();
  await expect(page.getByText("No referrals match these filters")).toBeVisible();
  await filters.getByRole("button", { name: "Clear" }).click();
  await expect(rows).toHaveCount(2);
  await filters.getByLabel("Source").fill("newsletter");
  await filters.getByLabel("Campaign").fill("spring");
  await filters.getByRole("button", { name: "Apply" }).click();
  await expect(rows).toHaveCount(2);
  await expectPageHealthy(page, "Referrals");
  await snap(page, "referrals-list", { mobile: true });

  // The referral's page: who referred whom, the key and source, and one timeline.
  await rows.filter({ hasText: "Bob Baker" }).getByRole("link", { name: /open details/ }).click();
  await expect(page).toHaveURL(/\/dashboard\/referrals\/[^/]+$/);
  const detail = page.getByTestId("referral-detail");
  await expect(detail).toContainText("Alice Archer");
  await expect(detail).toContainText("Bob Baker");
  await expect(detail).toContainText("newsletter");
  await expect(page.getByTestId("timeline-entry").first()).toContainText("Alice Archer referred Bob Baker (source: newsletter)");
  await expect(page.getByTestId("timeline-entry").filter({ hasText: "purchase" })).toHaveCount(1);
  await expectPageHealthy(page, "Referral detail");
  await snap(page, "referral-detail", { mobile: true });

  // Participants: search, then Alice's page lists both referrals she made.
  await page.getByRole("link", { name: "Participants" }).first().click();
  await expect(page.getByTestId("participant-row")).toHaveCount(3);
  const search = page.getByRole("form", { name: "Search participants" });
  await search.getByLabel("Search").fill(code.toLowerCase());
  await search.getByRole("button", { name: "Search" }).click();
  await expect(page.getByTestId("participant-row")).toHaveCount(1);
  await expectPageHealthy(page, "Participants");
  await page.getByTestId("participant-row").getByRole("link", { name: "Alice Archer" }).click();
  await expect(page.getByRole("heading", { name: "Alice Archer", level: 1 })).toBeVisible();
  await expect(page.getByTestId("participant-detail").getByTestId("referral-row")).toHaveCount(2);
  await expectPageHealthy(page, "Participant detail");
  await snap(page, "participant-detail", { mobile: true });

  // Another business's referral id is simply not found.
  await page.goto("/dashboard/referrals/does-not-exist");
  await expect(page.getByRole("alert").filter({ hasText: /not found/i })).toBeVisible();
});
