// Books that close from files, in the browser: the Balance page's ledger with the balance after
// each entry and its CSV export, the Proofs page (publish, status, how to verify) and the public
// proof page anyone can open; each page axe-clean with no sideways scroll at 1440 and 390 px.
import { expect, test } from "@playwright/test";
import { expectPageHealthy } from "./a11y";
import { fundTestPool, readSecret, signUpInBrowser, uniqueEmail } from "./support";

test("ledger with running balance, proofs page and the public proof page", async ({ page, browser }) => {
  test.setTimeout(240_000);
  await signUpInBrowser(page, { email: uniqueEmail("books"), businessName: "Books & Co" });
  await expect(page).toHaveURL(/\/dashboard\/get-started$/);
  await page.getByRole("button", { name: "Create test key" }).click();
  await readSecret(page);

  // Two deposits: the ledger shows the balance after each, newest first.
  await page.goto("/dashboard/balance");
  await fundTestPool(page);
  const deposit = page.getByRole("form", { name: "Send a test deposit" });
  const verify = page.getByRole("form", { name: "Verify a deposit" });
  const firstHash = await verify.getByLabel("Transaction hash").inputValue();
  await deposit.getByLabel("Amount (ETH)").fill("0.5");
  await deposit.getByRole("button", { name: "Send test deposit" }).click();
  // The second deposit's hash replaces the first in the verify form once it is sent.
  await expect(verify.getByLabel("Transaction hash")).not.toHaveValue(firstHash);
  await verify.getByRole("button", { name: "Verify and credit" }).click();
  await expect(page.getByTestId("pool-balance")).toHaveText("1.5 ETH");
  await page.reload();
  const rows = page.getByTestId("ledger-row");
  await expect(rows).toHaveCount(2);
  await expect(page.getByTestId("ledger-balance-after")).toHaveText(["1.5 ETH", "1 ETH"]);
  await expect(page.getByTestId("ledger-balance")).toHaveText("1.5 ETH");
  await expectPageHealthy(page, "balance with ledger");
  const exported = await page.request.get(await page.getByTestId("export-ledger").getAttribute("href") as string);
  expect(exported.status()).toBe(200);
  const lines = (await exported.text()).trim().split("\r\n");
  expect(lines[0]).toBe("ledgerEntryId,seq,environment,createdAt,kind,direction,amountEth,balanceEth,txHash,rewardId,reference,memo");
  expect(lines.slice(1).map((l) => l.split(",")[7])).toEqual(["1", "1.5"]);

  // Proofs: none yet, then one published by the owner, listed with its status.
  await page.getByRole("link", { name: "Proofs" }).first().click();
  await expect(page.getByRole("heading", { level: 1, name: "Proofs" })).toBeVisible();
  await expect(page.getByText("No proof yet")).toBeVisible();
  await page.getByRole("button", { name: "Publish a proof now" }).click();
  await expect(page.getByTestId("proof-row")).toHaveCount(1);
  await expect(page.getByTestId("proof-status")).toHaveText("Covered");
  await expectPageHealthy(page, "proofs");

  // The public page, opened by anyone (a fresh browser context, no session).
  const href = (await page.getByTestId("proof-latest-link").getAttribute("href"))!;
  expect(href).toMatch(/^\/proofs\/[^/]+\/TEST\/latest$/);
  const visitor = await browser.newContext({ baseURL: new URL(page.url()).origin });
  const pub = await visitor.newPage();
  await pub.goto(href);
  await expect(pub.getByRole("heading", { level: 1 })).toHaveText("Books & Co: proof of liabilities");
  await expect(pub.getByTestId("proof-status")).toContainText("Covered");
  await expect(pub.getByText("verifyLiabilityProof").first()).toBeVisible();
  await expectPageHealthy(pub, "public proof page");
  const json = await visitor.request.get(href, { headers: { accept: "application/json" } });
  expect((await json.json()).covered).toBe(true);
  await visitor.close();
});
