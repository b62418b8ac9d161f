// The portal for people without a browser wallet and for referred customers (issue 52, items 3–5),
// in a real Chromium: a referrer proves a wallet by pasting a signature made elsewhere (a wrong
// one is refused in words), reads what each reward was for, the earnings chart and the proof
// line; a referred customer owed a bonus opens the same portal, reads it as a customer and adds a
// wallet; the Balance page groups customers without a wallet; Configuration states what
// bonusRequiresWallet does. axe finds nothing serious at 1440 and 390 px, nothing scrolls sideways.
import { expect, test, type Page } from "@playwright/test";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { expectPageHealthy } from "./a11y";
import { fundTestPool, readSecret, sdk, signUpInBrowser, snap, uniqueEmail } from "./support";

/** Opens a portal session's link in a fresh browser context (as the participant would). */
async function openPortal(page: Page, url: string, baseURL: string) {
  const ctx = await page.context().browser()!.newContext({ baseURL });
  const p = await ctx.newPage();
  const u = new URL(url);
  await p.goto(u.pathname + u.search);
  await expect(p).toHaveURL(/\/portal$/);
  return { p, close: () => ctx.close() };
}

/** Pastes an address, signs the shown message with `sign`, pastes the signature. */
async function pasteSignature(p: Page, address: string, sign: (message: string) => Promise<string>) {
  await p.getByRole("button", { name: "Sign in another wallet" }).click();
  await p.getByLabel("1. Your wallet address").fill(address);
  await p.getByRole("button", { name: "Get the message to sign" }).click();
  const message = (await p.getByTestId("siwe-message").textContent())!;
  expect(message).toContain(address);
  await p.getByLabel("3. Paste the signature").fill(`${await sign(message)}\n`);
  await p.getByRole("button", { name: "Verify signature" }).click();
}

test("without a browser wallet: paste a signature; rewards say what for; a customer claims their bonus", async ({ page, request, baseURL }) => {
  test.setTimeout(240_000);
  await signUpInBrowser(page, { email: uniqueEmail("story"), businessName: "Story Goods" });
  await expect(page).toHaveURL(/\/dashboard\/get-started$/);
  await page.getByRole("button", { name: "Create test key" }).click();
  const secret = await readSecret(page);
  const general = await page.request.patch("/business/config/general", { data: { environment: "TEST", eventProcessing: "SYNC", referralRewardEth: "0.01", bonusEth: "0.002" }, headers: { origin: baseURL! } });
  expect(general.status()).toBe(200);
  await page.goto("/dashboard/balance");
  await fundTestPool(page);

  const ann = await sdk(request, secret, "POST", "/sdk/participants", { userId: "u-ann", email: "ann@example.com", name: "Ann Archer" });
  const bo = uniqueEmail("bo");
  expect((await sdk(request, secret, "POST", "/track", { eventName: "purchase", referrer: ann.body.referralCode, metadata: { referredUserEmail: bo } })).body.status).toBe("PROCESSED");
  // Ann's own sign-up through her code: rejected, never counted.
  expect((await sdk(request, secret, "POST", "/track", { eventName: "signup", referrer: ann.body.referralCode, metadata: { referredUserEmail: "ann@example.com" } })).status).toBe(200);
  const proof = await page.request.post("/business/proofs", { data: { environment: "TEST" }, headers: { origin: baseURL! } });
  expect(proof.status()).toBe(200);
  const block = (await proof.json()).blockNumber as number;

  // Ann, without a browser wallet.
  const s = await sdk(request, secret, "POST", "/sdk/participants/portal-sessions", { userId: "u-ann" });
  const annPortal = await openPortal(page, s.body.url as string, baseURL!);
  const p = annPortal.p;
  await expect(p.getByRole("heading", { name: "Your referrals and rewards" })).toBeVisible();
  await expect(p.getByTestId("reward-row").first()).toContainText(`Referral reward: ${bo[0]}•••@example.com joined (purchase)`);
  await expect(p.getByText(/1 referral in all, 1 qualified; 1 not counted/)).toBeVisible();
  await expect(p.getByText("Not counted: your own sign-up")).toBeVisible();
  await expect(p.getByTestId("earnings-chart")).toBeVisible();
  await expect(p.getByTestId("proof-line")).toContainText(`The pool covers everything owed: verified at block ${block}, your share included.`);
  await expect(p.getByRole("link", { name: "Verify it yourself" })).toHaveAttribute("href", /\/proofs\/[^/]+\/TEST\/latest$/);

  const account = privateKeyToAccount(generatePrivateKey());
  const stranger = privateKeyToAccount(generatePrivateKey());
  await pasteSignature(p, account.address, (message) => stranger.signMessage({ message }));
  await expect(p.getByText("The signature does not verify for this address and message")).toBeVisible();
  await expect(p.getByText("No wallet yet.")).toBeVisible();
  await p.getByLabel("3. Paste the signature").fill(await account.signMessage({ message: (await p.getByTestId("siwe-message").textContent())! }));
  await p.getByRole("button", { name: "Verify signature" }).click();
  await expect(p.getByText("Wallet verified: payouts go to it from now on.")).toBeVisible();
  await expect(p.getByTestId("wallet-address")).toHaveText(account.address);
  await expect(p.getByText("Verified", { exact: true })).toBeVisible();
  await p.getByRole("button", { name: "Sign in another wallet" }).click();
  await p.getByLabel("1. Your wallet address").fill(account.address);
  await p.getByRole("button", { name: "Get the message to sign" }).click();
  await expect(p.getByTestId("siwe-message")).toBeVisible();
  await expectPageHealthy(p, "Portal with the paste flow open");
  await snap(p, "portal-story", { mobile: true });
  await annPortal.close();

  // Bo, a referred customer owed a bonus, with no wallet: the Balance page groups them.
  await page.goto("/dashboard/balance");
  await expect(page.getByTestId("queue-customers")).toContainText("Owed to customers without a wallet: 1 customer");
  await expect(page.getByTestId("queue-customer-row")).toContainText("add a wallet in their portal");
  await expectPageHealthy(page, "Balance with customers owed a bonus");
  await snap(page, "balance-customers-without-wallet", { mobile: true });

  const bs = await sdk(request, secret, "POST", "/sdk/participants/portal-sessions", { email: bo });
  const boPortal = await openPortal(page, bs.body.url as string, baseURL!);
  const q = boPortal.p;
  await expect(q.getByRole("heading", { name: "Your rewards" })).toBeVisible();
  await expect(q.getByText("You joined Story Goods through a friend's referral.")).toBeVisible();
  await expect(q.getByText("Add a wallet below to receive it.")).toBeVisible();
  await expect(q.getByTestId("reward-row").first()).toContainText("Welcome bonus: you joined through a referral (purchase)");
  await expect(q.getByRole("heading", { name: "Invite friends too" })).toBeVisible();
  await expectPageHealthy(q, "Customer portal");
  await snap(q, "portal-customer", { mobile: true });
  const wallet = privateKeyToAccount(generatePrivateKey());
  await pasteSignature(q, wallet.address, (message) => wallet.signMessage({ message }));
  await expect(q.getByTestId("wallet-address")).toHaveText(wallet.address);
  await boPortal.close();
  await page.reload();
  await expect(page.getByTestId("queue-customers")).toHaveCount(0);

  // Configuration: the setting and its consequence, in words.
  await page.getByRole("link", { name: "Configuration" }).last().click();
  const toggle = page.getByRole("switch", { name: /^Bonus only to (test|live) customers with a wallet$/ });
  await expect(toggle).toHaveAttribute("aria-checked", "false");
  await toggle.click();
  await expect(page.getByText("a referred customer who has no payout wallet when their purchase qualifies gets no bonus")).toBeVisible();
  await page.getByRole("button", { name: "Save general settings" }).click();
  await expect(page.getByText("General settings saved")).toBeVisible();
  await page.reload();
  await expect(page.getByRole("switch", { name: /^Bonus only to (test|live) customers with a wallet$/ })).toHaveAttribute("aria-checked", "true");
  await expectPageHealthy(page, "Configuration with bonusRequiresWallet");
});
